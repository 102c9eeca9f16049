package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/faultline/faultline/cluster"
)

func newClusterCmd() *cobra.Command {
	var cfg cluster.Config
	cmd := &cobra.Command{
		Use:   "cluster up|down|status",
		Short: "Create, remove or inspect a local test cluster (network namespaces + sshd; needs root)",
		Long:  help("cluster"),
		Example: `  sudo faultline cluster up --nodes 5
  sudo faultline cluster up --vm --nodes 3 --packages etcd-server
  sudo faultline cluster status
  sudo faultline cluster down`,
	}
	fl := cmd.PersistentFlags()
	fl.IntVar(&cfg.Nodes, "nodes", cluster.DefaultNodes, "number of nodes (n1..nN)")
	fl.StringVar(&cfg.StateDir, "state-dir", cluster.DefaultStateDir, "where keys, configs and node directories live")
	fl.StringVar(&cfg.Subnet, "subnet", cluster.DefaultSubnet, "IPv4 subnet of the cluster bridge")
	fl.StringVar(&cfg.Prefix, "prefix", cluster.DefaultPrefix, "name prefix of namespaces and links")
	fl.BoolVar(&cfg.VM, "vm", false, "nodes are QEMU VMs with their own Debian kernel (clock faults, netem) instead of namespaces")
	fl.StringSliceVar(&cfg.Packages, "packages", nil, "extra Debian packages in the VM image (with --vm), e.g. etcd-server")
	fl.BoolVar(&cfg.Rebuild, "rebuild", false, "rebuild the VM image even when a cached one matches")
	fl.StringVar(&cfg.ImageCache, "image-cache", cluster.DefaultImageCache, "where VM images are built and cached")
	fl.IntVar(&cfg.MemoryMB, "memory", 256, "memory of each VM in MB")
	cmd.AddCommand(
		&cobra.Command{
			Use:   "up",
			Short: "Create the cluster, or repair it after a crash",
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				cfg.Log = cmd.ErrOrStderr()
				st, err := cluster.Up(cmd.Context(), cfg)
				if err != nil {
					return clusterErr(err)
				}
				fmt.Fprintln(cmd.OutOrStdout(), st.Summary())
				return nil
			},
		},
		imageCmd(&cfg),
		&cobra.Command{
			Use:   "down",
			Short: "Remove every namespace, link, mount and process the cluster created",
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				if err := cluster.Down(cmd.Context(), cfg); err != nil {
					return clusterErr(err)
				}
				fmt.Fprintln(cmd.OutOrStdout(), "cluster down: nothing of it is left")
				return nil
			},
		},
		&cobra.Command{
			Use:   "status",
			Short: "Show each node: namespace, link, sshd, reachable",
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				rep, err := cluster.Status(cmd.Context(), cfg)
				if err != nil {
					return clusterErr(err)
				}
				if err := rep.Table(cmd.OutOrStdout()); err != nil {
					return err
				}
				fmt.Fprintln(cmd.OutOrStdout(), rep.Summary())
				if !rep.Healthy() {
					return &exitError{code: exitUnknown}
				}
				return nil
			},
		},
	)
	return cmd
}

// clusterErr maps environment problems (not root, missing tools) to exit 3
// with the message that says how to fix them.
func clusterErr(err error) error {
	var missing *cluster.MissingToolsError
	if errors.Is(err, cluster.ErrNotRoot) || errors.As(err, &missing) {
		return &exitError{code: exitRejected, err: err}
	}
	return err
}

// imageCmd is `cluster image`: the VM image for --packages, built or found
// in the cache, and with --prune every other cached image removed.
func imageCmd(cfg *cluster.Config) *cobra.Command {
	var prune bool
	cmd := &cobra.Command{
		Use:   "image",
		Short: "Build the VM image (or find it in the cache) and print where it is",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			img, err := cluster.EnsureImage(cmd.Context(), cluster.ImageConfig{Packages: cfg.Packages,
				CacheDir: cfg.ImageCache, Rebuild: cfg.Rebuild, Log: cmd.ErrOrStderr()})
			if err != nil {
				return clusterErr(err)
			}
			how := "cached"
			if img.Built {
				how = fmt.Sprintf("built in %.1fs", img.BuildTime.Seconds())
			}
			fmt.Fprintf(cmd.OutOrStdout(), "VM image %s (%s): kernel %s from %s %s, %s\n", img.Key, how, img.KernelRelease, img.KernelPackage, img.KernelVersion, img.Dir)
			if !prune {
				return nil
			}
			removed, inUse, err := cluster.PruneImages(cmd.Context(), cfg.ImageCache, img.Key)
			for _, d := range removed {
				fmt.Fprintf(cmd.OutOrStdout(), "removed %s\n", d)
			}
			for _, d := range inUse {
				fmt.Fprintf(cmd.OutOrStdout(), "kept %s: a running VM boots from it\n", d)
			}
			return clusterErr(err)
		},
	}
	cmd.Flags().BoolVar(&prune, "prune", false, "then remove every other cached VM image (not one a running VM uses)")
	return cmd
}

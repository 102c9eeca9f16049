package session

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/mesh"
)

// defaultLocalNodes are the nodes of --local when --nodes names none.
var defaultLocalNodes = []string{"n1", "n2", "n3"}

// LocalRootPattern names the temporary directory of a --local run's nodes.
const LocalRootPattern = "faultline-local-"

// LocalOwnerFile, in a --local nodes root, marks the directory as
// faultline's and says whose it is: the run holds an flock on it while it
// lives (the kernel drops it when the run dies, even by SIGKILL), and it
// lists "pid N" and one "session DIR" line per session the run wrote. A
// later --local run removes a root whose owner is dead, after copying its
// nodes' logs into the last session it names.
const LocalOwnerFile = ".faultline-owner"

// localRoots maps a --local pool to its owner file, for noteLocalSession.
var localRoots sync.Map // *control.Pool -> *os.File

// localPool makes the nodes of a --local run: directories in a fresh
// temporary directory, daemons supervised by faultline, and every link
// through a proxy mesh so network faults need no root. The returned func
// kills every daemon, closes the mesh and removes the directories; the
// session keeps what matters (the db recipe saves node logs before its
// teardown). Roots that killed runs left behind are swept first (see
// SweepLocalRoots), their logs kept; what was swept is said on warn.
func localPool(names []string, seed uint64, warn io.Writer) (*control.Pool, func() error, error) {
	if len(names) == 0 {
		names = defaultLocalNodes
	}
	for _, msg := range SweepLocalRoots(os.TempDir()) {
		fmt.Fprintf(warn, "faultline: %s\n", msg)
	}
	root, err := os.MkdirTemp("", LocalRootPattern)
	if err != nil {
		return nil, nil, fmt.Errorf("local nodes: %w", err)
	}
	owner, err := claimLocalRoot(root)
	if err != nil {
		os.RemoveAll(root)
		return nil, nil, err
	}
	pool, sup, err := control.NewLocalPool(root, names)
	if err != nil {
		owner.Close()
		os.RemoveAll(root)
		return nil, nil, err
	}
	m := mesh.New(mesh.Options{Seed: seed})
	pool.SetNetwork(m)
	localRoots.Store(pool, owner)
	cleanup := func() error {
		localRoots.Delete(pool)
		// The lock goes last: until the directory is gone it is ours.
		err := errors.Join(pool.Close(), sup.Close(), m.Close(), os.RemoveAll(root))
		owner.Close()
		return err
	}
	return pool, cleanup, nil
}

// claimLocalRoot writes root's owner file and takes its lock. The file is
// locked and written under another name first, so a sweeper never finds it
// unlocked.
func claimLocalRoot(root string) (*os.File, error) {
	tmp := filepath.Join(root, LocalOwnerFile+".new")
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("local nodes: %w", err)
	}
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if err == nil {
		_, err = fmt.Fprintf(f, "pid %d\n", os.Getpid())
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(root, LocalOwnerFile))
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("local nodes: owner file: %w", err)
	}
	return f, nil
}

// noteLocalSession records in pool's owner file (when pool is a --local
// one) that the run writes its session into dir, so that if the run is
// killed the next --local run can copy the nodes' logs there.
func noteLocalSession(pool *control.Pool, dir string) {
	v, ok := localRoots.Load(pool)
	if !ok {
		return
	}
	abs, err := filepath.Abs(dir)
	if err != nil || strings.ContainsAny(abs, "\n\r") {
		return // a record that would not read back is no record
	}
	fmt.Fprintf(v.(*os.File), "session %s\n", abs)
}

// SweepLocalRoots removes from tmp the --local node roots that runs killed
// before their cleanup left behind: directories named faultline-local-*,
// owned by this user, holding an owner file whose lock nobody holds. A
// root without an owner file (not faultline's, or a live run's that has
// not written it yet) or whose owner still runs is left alone. Each swept
// root's log files (*.log, *.log.N, *.out, *.err) are first copied into
// <session>/logs/local-nodes/<node>/ of the last session the run recorded;
// a root whose logs cannot be kept stays. It returns one message per root
// it acted on.
func SweepLocalRoots(tmp string) []string {
	dirs, err := filepath.Glob(filepath.Join(tmp, LocalRootPattern+"*"))
	if err != nil {
		return nil
	}
	var msgs []string
	for _, dir := range dirs {
		msg, err := sweepLocalRoot(dir)
		switch {
		case err != nil:
			msgs = append(msgs, fmt.Sprintf("left the nodes of a killed --local run in %s: %v", dir, err))
		case msg != "":
			msgs = append(msgs, msg)
		}
	}
	return msgs
}

// sweepLocalRoot sweeps one candidate root; "" and nil mean it was not
// stale.
func sweepLocalRoot(dir string) (string, error) {
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() {
		return "", nil
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != os.Geteuid() {
		return "", nil
	}
	f, err := os.OpenFile(filepath.Join(dir, LocalOwnerFile), os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return "", nil
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return "", nil // its run is alive (or the lock cannot be judged)
	}
	pid, sessions := readLocalOwner(f)
	kept := ""
	for i := len(sessions) - 1; i >= 0; i-- {
		if fi, err := os.Stat(sessions[i]); err == nil && fi.IsDir() {
			kept = filepath.Join(sessions[i], "logs", "local-nodes")
			break
		}
	}
	n := 0
	if kept != "" {
		if n, err = copyFiles(dir, kept, isLogName); err != nil {
			return "", fmt.Errorf("keeping its logs in %s: %w", kept, err)
		}
	}
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	msg := fmt.Sprintf("removed %s, the nodes of a killed --local run (pid %d)", dir, pid)
	switch {
	case n > 0:
		msg += fmt.Sprintf("; its %d node log(s) are in %s", n, kept)
	case kept != "":
		msg += "; it had no node logs"
	default:
		msg += "; it had written no session"
	}
	return msg, nil
}

// readLocalOwner parses an owner file.
func readLocalOwner(r io.Reader) (pid int, sessions []string) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		kind, val, _ := strings.Cut(sc.Text(), " ")
		switch kind {
		case "pid":
			pid, _ = strconv.Atoi(val)
		case "session":
			if filepath.IsAbs(val) {
				sessions = append(sessions, filepath.Clean(val))
			}
		}
	}
	return pid, sessions
}

// isLogName says which node files are logs worth keeping.
func isLogName(name string) bool {
	base, _, _ := strings.Cut(name, ".log.")
	return strings.HasSuffix(name, ".log") || base != name || strings.HasSuffix(name, ".out") || strings.HasSuffix(name, ".err")
}

// copyFiles copies every regular file under root that keep accepts (all
// when keep is nil) to the same path under dst, making directories, and
// returns how many it copied. Symlinks are not followed, so nothing outside
// root is read, and an existing file in dst is an error, never overwritten.
func copyFiles(root, dst string, keep func(name string) bool) (int, error) {
	n := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() || keep != nil && !keep(d.Name()) {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		if err := copyNewFile(p, filepath.Join(dst, rel)); err != nil {
			return err
		}
		n++
		return nil
	})
	return n, err
}

// copyNewFile copies src to the new file dst, making its directory.
func copyNewFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copy %s: %w", src, err)
	}
	return out.Close()
}

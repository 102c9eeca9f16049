#!/bin/bash
# The recipe of a faultline VM node image, run by cluster.EnsureImage (the
# Go side chooses the inputs and hashes this file into the cache key, so
# changing it rebuilds every cached image). Inputs in the environment:
#   WORK      empty directory to build in (outputs land here)
#   RELEASE   Debian release (bookworm)
#   MIRROR    the Debian mirror the host's apt uses
#   KPKG      the versioned kernel package linux-image-amd64 depends on
#   PACKAGES  extra Debian packages, comma-separated (may be empty)
# Outputs in WORK: vmlinux (uncompressed, for PVH boot), initrd.img,
# base.img (ext4 root filesystem), kernel-release.
set -euo pipefail
: "${WORK:?}" "${RELEASE:?}" "${MIRROR:?}" "${KPKG:?}"
cd "$WORK"
log() { echo "vm-image: $*" >&2; }

umount_all() {
  # Anything debootstrap's second stage left mounted under the rootfs.
  local m
  for m in $(grep -o " $WORK/rootfs[^ ]*" /proc/mounts | sort -r || true); do umount -l "$m" || true; done
}
trap umount_all EXIT

log "kernel package $KPKG"
mkdir -p debs kernel
(cd debs && apt-get download -q "$KPKG" 2>&1 | grep -v 'unsandboxed' >&2 || true)
ls debs/*.deb >/dev/null
dpkg-deb -x debs/*.deb kernel
KREL=$(ls kernel/lib/modules | head -n 1)
[ -n "$KREL" ] || { log "no modules in $KPKG"; exit 1; }
echo "$KREL" >kernel-release

# The uncompressed vmlinux inside the bzImage: find the payload's magic and
# decompress from there (what the kernel's scripts/extract-vmlinux does).
extract_vmlinux() {
  local img=$1 out=$2 pair magic cmd off
  for pair in '\xfd\x37\x7a\x58\x5a\x00:xz -dcq' '\x1f\x8b\x08\x00:gzip -dcq' '\x28\xb5\x2f\xfd:zstd -dcq'; do
    magic=${pair%%:*}; cmd=${pair#*:}
    for off in $(LC_ALL=C grep -obUaP "$magic" "$img" | cut -d: -f1); do
      tail -c +$((off + 1)) "$img" | $cmd >"$out" 2>/dev/null || true
      if [ "$(head -c 4 "$out" | od -An -tx1 | tr -d ' ')" = 7f454c46 ]; then
        return 0
      fi
    done
  done
  return 1
}
log "extracting vmlinux"
extract_vmlinux "$(ls kernel/boot/vmlinuz-*)" vmlinux || { log "could not extract vmlinux"; exit 1; }

log "debootstrap $RELEASE from $MIRROR"
include=openssh-server,iproute2,iptables,iputils-ping,kmod,procps,xz-utils
[ -n "${PACKAGES:-}" ] && include="$include,$PACKAGES"
# --foreign then --second-stage so that policy-rc.d is in place before any
# package's maintainer script runs: a package such as etcd-server must not
# start its daemon on the host while the image is built.
debootstrap --variant=minbase --foreign --include="$include" "$RELEASE" rootfs "$MIRROR" >debootstrap.log 2>&1 ||
  { tail -n 20 debootstrap.log >&2; exit 1; }
printf '#!/bin/sh\nexit 101\n' >rootfs/usr/sbin/policy-rc.d
chmod 755 rootfs/usr/sbin/policy-rc.d
chroot rootfs /debootstrap/debootstrap --second-stage >>debootstrap.log 2>&1 ||
  { tail -n 20 debootstrap.log >&2; tail -n 20 rootfs/debootstrap/debootstrap.log >&2 || true; exit 1; }
umount_all
rm -f rootfs/usr/sbin/policy-rc.d

log "modules for $KREL"
mkdir -p rootfs/lib/modules
cp -a "kernel/lib/modules/$KREL" rootfs/lib/modules/
depmod -b rootfs "$KREL"

# Per-node host keys come from the node's seed disk: none in the image.
rm -f rootfs/etc/ssh/ssh_host_*
# No time daemon (clock faults must stick) and nothing that is not needed.
rm -rf rootfs/usr/share/doc/* rootfs/usr/share/man/* rootfs/usr/share/info/* rootfs/usr/share/locale/* \
  rootfs/var/cache/apt/archives/*.deb rootfs/var/lib/apt/lists/* rootfs/debootstrap
: >rootfs/etc/machine-id

cat >rootfs/sbin/faultline-init <<'EOF'
#!/bin/sh
# PID 1 of a faultline VM node: mount what sshd and the tests need, apply
# the node's seed (a tar on the second disk: hostname, hosts, host key,
# authorized_keys, sshd_config, node.env), bring up eth0 and start sshd.
# No systemd and no time daemon, so clock faults stay where they are put.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mountpoint -q /dev || mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts -o gid=5,mode=620 devpts /dev/pts
mount -t tmpfs -o mode=1777 shm /dev/shm
mount -t tmpfs -o mode=755 run /run
mount -t tmpfs -o mode=1777 tmp /tmp
mount -o remount,rw /
mkdir -p /run/sshd /run/lock
modprobe virtio_net
modprobe virtio_rng 2>/dev/null
tar -xf /dev/vdb -C / --no-same-owner || echo "faultline-init: no seed on /dev/vdb"
. /etc/faultline/node.env
hostname "$NODE_NAME"
ip link set lo up
ip addr add "$NODE_ADDR" dev eth0
ip link set eth0 up
/usr/sbin/sshd -D -e -f /etc/ssh/sshd_config.faultline </dev/null >/dev/console 2>&1 &
echo "faultline-init: $NODE_NAME up at $NODE_ADDR" >/dev/console
# PID 1 reaps the orphans of everything started over ssh: dash's wait
# collects any child, not only its own jobs.
while :; do
  sleep 3600 &
  wait
done
EOF
chmod 755 rootfs/sbin/faultline-init

log "initramfs"
mkdir -p initramfs/bin initramfs/modules initramfs/proc initramfs/sys initramfs/dev initramfs/newroot
cp /usr/bin/busybox initramfs/bin/busybox
: >initramfs/modules.order
# One module a call: modprobe takes any further arguments as parameters.
# crc32c is not a symbol dependency of ext4 (it asks the crypto API at
# mount time), so it is named too.
for mod in virtio_pci virtio_blk crc32c_generic ext4; do
  modprobe -d rootfs -S "$KREL" --show-depends "$mod" 2>/dev/null || true
done | while read -r kind path _; do
  [ "$kind" = insmod ] || continue
  name=$(basename "$path")
  case $name in
    *.xz) xz -dc "$path" >"initramfs/modules/${name%.xz}"; name=${name%.xz} ;;
    *.zst) zstd -dcq "$path" >"initramfs/modules/${name%.zst}"; name=${name%.zst} ;;
    *) cp "$path" initramfs/modules/ ;;
  esac
  grep -qx "$name" initramfs/modules.order || echo "$name" >>initramfs/modules.order
done
cat >initramfs/init <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
for m in $(cat /modules.order); do insmod "/modules/$m" || echo "initramfs: insmod $m failed"; done
init=/sbin/init
for a in $(cat /proc/cmdline); do
  case $a in
    init=*) init=${a#init=} ;;
    fl.probe=1) echo FAULTLINE-PROBE-OK; poweroff -f ;;
  esac
done
n=0
until [ -b /dev/vda ]; do
  n=$((n + 1)); [ $n -gt 300 ] && { echo "initramfs: no /dev/vda"; poweroff -f; }
  sleep 0.1
done
mount -t ext4 -o rw /dev/vda /newroot || { echo "initramfs: mount /dev/vda failed"; poweroff -f; }
umount /sys
mount --move /dev /newroot/dev
umount /proc
exec switch_root /newroot "$init"
EOF
chmod 755 initramfs/init
(cd initramfs && find . | cpio -o -H newc --quiet) | gzip -1 >initrd.img

log "base.img"
truncate -s 2G base.img
mkfs.ext4 -q -F -L faultline-root -d rootfs base.img
rm -rf rootfs kernel debs initramfs
log "done"

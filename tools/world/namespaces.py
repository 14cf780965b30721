"""Network namespaces for the packet-level world (standard library only, ctypes for the
system calls Python 3.11 lacks).

The world process moves itself into a new network namespace (the server namespace: every
origin, Knot, the OCSP responder and nginx, each origin on an address of its own from
198.18.0.0/15 on the loopback device). `netem shell`, started there, makes the client
namespace behind the emulated link. Commands run as the client host by entering that
namespace (setns) and a private mount namespace whose /etc/resolv.conf names the world's
DNS server. Nothing here touches the machine's own namespace: no device, address, route or
sysctl is changed outside the namespaces made here, and they go when their last process
exits.
"""

import ctypes
import os
import subprocess

CLONE_NEWNS = 0x00020000
CLONE_NEWNET = 0x40000000
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18

_libc = ctypes.CDLL(None, use_errno=True)


class NamespaceError(Exception):
    pass


def _check(rc, what):
    if rc != 0:
        e = ctypes.get_errno()
        raise NamespaceError("%s: %s" % (what, os.strerror(e)))


def why_not_packet():
    """Why this process cannot run the packet-level world, or None if it can."""
    if os.geteuid() != 0:
        return "not root (needs CAP_NET_ADMIN and CAP_SYS_ADMIN for namespaces and TUN devices)"
    if not os.path.exists("/dev/net/tun"):
        return "no /dev/net/tun"
    try:
        with open("/dev/net/tun", "rb"):
            pass
    except OSError as e:
        return "cannot open /dev/net/tun: %s" % e.strerror
    if not _ip():
        return "no `ip` binary (Debian iproute2)"
    return None


def _ip():
    for p in ("/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"):
        if os.access(p, os.X_OK):
            return p
    return None


def ip(*args):
    r = subprocess.run([_ip()] + list(args), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    if r.returncode != 0:
        raise NamespaceError("ip %s: %s" % (" ".join(args), r.stdout.strip()))
    return r.stdout


def enter_new_network_namespace(addresses):
    """Moves this process into a new network namespace with loopback up and each address
    (/32) on it. Everything this process starts afterwards runs there."""
    _check(_libc.unshare(CLONE_NEWNET), "unshare(CLONE_NEWNET)")
    ip("link", "set", "lo", "up")
    for a in addresses:
        ip("addr", "add", a + "/32", "dev", "lo")


def set_sysctl(key, value):
    """Sets a sysctl of this process's network namespace (never call it in the machine's)."""
    with open("/proc/sys/" + key.replace(".", "/"), "w") as f:
        f.write(str(value))


_original_netns = None
_resolv_bound = False
MNT_DETACH = 2


def enter_client(pid, resolv_conf):
    """Moves this process into the network namespace of `pid` and a private mount namespace
    whose /etc/resolv.conf is `resolv_conf`. For a child between fork and exec (preexec_fn),
    a process about to exec, or one that stays the client host until leave_client()."""
    global _original_netns, _resolv_bound
    if _original_netns is None:
        _original_netns = os.open("/proc/self/ns/net", os.O_RDONLY)
    fd = os.open("/proc/%d/ns/net" % pid, os.O_RDONLY)
    try:
        _check(_libc.setns(fd, CLONE_NEWNET), "setns into the client namespace")
    finally:
        os.close(fd)
    if resolv_conf:
        _check(_libc.unshare(CLONE_NEWNS), "unshare(CLONE_NEWNS)")
        _check(_libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None),
               "make / private")
        _check(_libc.mount(resolv_conf.encode(), b"/etc/resolv.conf", None, MS_BIND, None),
               "bind-mount resolv.conf")
        _resolv_bound = True


def leave_client():
    """Back to the network namespace this process had before enter_client (a client host that
    stops the world must not be inside it: the world's netem stops every process left in the
    client namespace)."""
    global _original_netns, _resolv_bound
    if _original_netns is not None:
        _check(_libc.setns(_original_netns, CLONE_NEWNET), "setns back")
        os.close(_original_netns)
        _original_netns = None
    if _resolv_bound:
        # And the world's /etc/resolv.conf, which goes with the world (a second world entered
        # later would bind over a deleted file). The private mount namespace stays (setns back
        # into the original one is refused to a multithreaded process); only this process sees
        # the unmount.
        _check(_libc.umount2(b"/etc/resolv.conf", MNT_DETACH), "unmount resolv.conf")
        _resolv_bound = False


def netns_inode(pid):
    try:
        return os.stat("/proc/%d/ns/net" % pid).st_ino
    except OSError:
        return None

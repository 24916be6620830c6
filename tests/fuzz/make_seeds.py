#!/usr/bin/python3
# Writes the seed corpora of the fuzz harnesses (tests/fuzz/corpus/NAME/),
# from the inputs the tests use: API requests as podwirectl and the smoke
# tests send them, state and configuration files as podwired writes and
# reads them, the VF pool file, CNI configs and environments as
# tests/smoke/cni_lib.sh makes them, NRI requests as containerd's v0.1
# client sends them, and memif handshakes and rings as net_memif makes
# them. Deterministic: run it again after changing a format, and commit.
import json, os, struct, sys

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")


def put(harness, name, data):
    d = os.path.join(OUT, harness)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def req(method, params=None, rid=1):
    r = {"jsonrpc": "2.0", "id": rid, "method": method}
    if params is not None:
        r["params"] = params
    return json.dumps(r)


# ---- API requests -----------------------------------------------------------
ports = {
    "vhost": {"name": "pod-a", "network": "net1", "type": "vhost-user",
              "socket": "/run/podwire/pods/a.sock", "mac": "02:00:00:00:0a:01"},
    "vhost_client": {"name": "pod-c", "network": "net1", "type": "vhost-user",
                     "socket": "/run/podwire/pods/c.sock", "mode": "client", "mtu": 9000},
    "memif": {"name": "pod-m", "network": "net1", "type": "memif", "socket": "/run/m.sock",
              "mode": "server", "secret": "s3cret", "mac": "02:00:00:00:0b:01"},
    "guards": {"name": "pod-g", "network": "net1", "type": "memif", "socket": "/run/g.sock",
               "mac": "02:00:00:00:0c:01", "port_security": True,
               "allowed_macs": "02:00:00:00:0c:02,02:00:00:00:0c:03", "mac_limit": 16,
               "flood_limit": 1000, "tx_retries": 4},
    "null": {"name": "n1", "network": "net2", "type": "null", "port_security": False},
    "af_xdp": {"name": "up", "network": "net2", "type": "af_xdp", "iface": "eth1"},
    "af_packet": {"name": "up2", "network": "net2", "type": "af_packet", "iface": "veth0"},
    "pci": {"name": "up3", "network": "net2", "type": "pci", "pci": "0000:01:10.2"},
}
for k, p in ports.items():
    put("api_request", "port_create_" + k, req("port.create", p))
nets = {
    "bridge": {"name": "net1"},
    "vlan": {"name": "net2", "mode": "bridge", "vlan": 100, "mac_limit": 1024,
             "flood_limit": 0},
    "xconnect": {"name": "xc", "mode": "xconnect"},
}
for k, n in nets.items():
    put("api_request", "network_create_" + k, req("network.create", n))
for m, p in [("system.info", None), ("network.list", None), ("port.list", {"network": "net1"}),
             ("port.get", {"name": "pod-a"}), ("port.delete", {"name": "pod-a"}),
             ("network.delete", {"name": "net1"}), ("stats.get", {"port": "pod-a"}),
             ("stats.clear", {}), ("mac.list", {"network": "net1"}),
             ("vf.list", {"physnet": "physnet2"}),
             ("vf.alloc", {"physnet": "physnet2", "owner": "c1/net1", "vlan": 10,
                           "mac": "02:00:00:00:00:01", "spoofchk": True, "trust": False}),
             ("vf.release", {"pci": "0000:01:10.2", "owner": "c1/net1"})]:
    put("api_request", m.replace(".", "_"), req(m, p))
put("api_request", "not_rpc", '{"id":7,"method":"port.create","params":[1]}')

# ---- the state file ----------------------------------------------------------
state = {"version": 2,
         "networks": [dict(v, **{"mode": v.get("mode", "bridge"), "vlan": v.get("vlan", 0)})
                      for v in nets.values()],
         "ports": [dict(p, **{"mtu": p.get("mtu", 1500)}) for p in ports.values()]}
put("state_file", "state_v2", json.dumps(state, indent=1))
put("state_file", "state_v1", json.dumps({"version": 1, "networks": [{"name": "old"}],
                                          "ports": [{"name": "p1", "network": "old",
                                                     "type": "null",
                                                     "mac": "02:00:00:00:01:01"}]}))
put("state_file", "empty", '{"version": 2, "networks": [], "ports": []}')

# ---- --config --------------------------------------------------------------------
put("config", "full", json.dumps({
    "main_core": 0, "worker_cores": "1", "socket": "/run/podwire/podwired.sock",
    "socket_group": "daemon", "state_dir": "/var/lib/podwire", "log_level": "info",
    "mac_table_size": 65536, "mac_aging_sec": 300, "mbufs": 32768,
    "physnets": "physnet2:enp1s0f0#0-3,physnet3:enp1s0f1", "sysfs_root": "/sys",
    "cdi_dir": "/var/run/cdi", "dev_root": "/dev"}, indent=1))
put("config", "cores", '{"worker_cores": "1-3,5", "main_core": 4}')
put("config", "bad_key", '{"workers": 1}')

# ---- option strings (first byte: which) ---------------------------------------------
for i, s in enumerate(["physnet2:enp1s0f0#0-3,physnet3:enp1s0f1", "1-3,5", "0", "debug",
                       "/run/podwire/podwired.sock", "/var/lib/podwire", "65536"]):
    put("options", "cli_%d" % i, bytes([i * 6]) + s.encode())
put("options", "physnets", b"\x01physnet2:enp1s0f0#0-7,physnet3:enp1s0f1#2-3")
put("options", "mac", b"\x0202:00:00:00:0a:01")
put("options", "pci", b"\x030000:01:10.2")
put("options", "sock", b"\x04/run/podwire/pods/a.sock")
put("options", "level", b"\x05warning")

# ---- the VF pool file --------------------------------------------------------------
put("vf_pool", "vfs", json.dumps({"version": 1, "vfs": [
    {"pci": "0000:01:10.2", "physnet": "physnet2", "pf": "enp1s0f0", "vf_index": 1,
     "owner": "c1/net1", "original_driver": "iavf"},
    {"pci": "0000:01:11.0", "physnet": "physnet3", "pf": "enp1s0f1", "vf_index": 0,
     "owner": "c2/net1", "original_driver": "iavf"}]}, indent=1))
put("vf_pool", "none", '{"version": 1, "vfs": []}')

# ---- CNI: environment lines, an empty line, the config -------------------------------
env = ("CNI_COMMAND=%s\nCNI_CONTAINERID=c1\nCNI_NETNS=/var/run/netns/c1\nCNI_IFNAME=net1\n"
       "CNI_PATH=/opt/cni/bin\nCNI_ARGS=IgnoreUnknown=true;K8S_POD_NAME=c1;MAC=02:00:00:00:0a:01\n\n")
base = {"cniVersion": "1.1.0", "name": "cninet", "type": "podwire", "network": "cninet",
        "socketDir": "/run/podwire/pods", "dataDir": "/var/lib/cni/podwire",
        "podwiredSocket": "/run/podwire/podwired.sock",
        "ipam": {"type": "host-local", "subnet": "10.77.0.0/24"}}
prev = {"cniVersion": "1.1.0", "interfaces": [{"name": "net1", "mac": "02:00:00:00:0a:01",
                                               "sandbox": "/var/run/netns/c1"}],
        "ips": [{"address": "10.77.0.2/24", "interface": 0, "gateway": "10.77.0.1"}],
        "routes": [{"dst": "0.0.0.0/0"}]}
for verb in ["ADD", "DEL", "CHECK", "GC", "STATUS", "VERSION"]:
    c = dict(base)
    if verb in ("DEL", "CHECK"):
        c["prevResult"] = prev
    if verb == "GC":
        c["cni.dev/valid-attachments"] = [{"containerID": "c1", "ifname": "net1"}]
    put("cni", verb.lower(), env % verb + json.dumps(c))
put("cni", "memif", env % "ADD" + json.dumps(dict(base, iftype="memif", mtu=9000,
                                                   portSecurity=True,
                                                   allowedMacs=["02:00:00:00:00:09"],
                                                   macLimit=8, floodLimit=100)))
put("cni", "queues", env % "ADD" + json.dumps(dict(base, iftype="memif", queues=2)))
put("cni", "pci", env % "ADD" + json.dumps(dict(base, iftype="pci", physnet="physnet2",
                                                 vlan=10, spoofchk=True, trust=False)))
put("cni", "runtime", env % "ADD" + json.dumps(dict(
    base, runtimeConfig={"CNIDeviceInfoFile": "/var/run/k8s.cni.cncf.io/devinfo/cni/x.json"})))

# ---- memif control messages (first byte: 0 server, 1 client) -------------------------
MSG = 128


def msg(mtype, body=b""):
    return (struct.pack("<H", mtype) + body).ljust(MSG, b"\0")


def name(s, n=32):
    return s.encode().ljust(n, b"\0")


HELLO, INIT, ADD_REGION, ADD_RING, CONNECT, CONNECTED, DISCONNECT, ACK = 2, 3, 4, 5, 6, 7, 8, 1
hello = msg(HELLO, name("pod") + struct.pack("<HHHHHB", 0x200, 0x200, 255, 255, 1, 14))
init = msg(INIT, struct.pack("<HIB", 0x200, 0, 0) + b"".ljust(24, b"\0") + name("pod"))
region = msg(ADD_REGION, struct.pack("<HQ", 0, 1 << 20))
ring_s2m = msg(ADD_RING, struct.pack("<HHHIBH", 1, 0, 0, 0, 10, 0))
ring_m2s = msg(ADD_RING, struct.pack("<HHHIBH", 0, 0, 0, 18560, 10, 0))
connect = msg(CONNECT, name("pod"))
put("memif_msg", "server_handshake", b"\0" + init + region + ring_s2m + ring_m2s + connect)
put("memif_msg", "server_disconnect", b"\0" + init + msg(DISCONNECT, struct.pack("<I", 1) +
                                                              name("bye", 96)))
put("memif_msg", "client_handshake", b"\1" + hello + msg(ACK) * 4 + msg(CONNECTED, name("pw")))

# ---- memif ring: 8 header bytes, then the region (s2m ring at 0, m2s at 512,
# buffers from 1024: 16 of 256 bytes each way) ------------------------------------------
def ring(head, tail, descs, flags=1):
    hdr = struct.pack("<IHH", 0x3E31F20, flags, head).ljust(64, b"\0")
    hdr += struct.pack("<H", tail).ljust(64, b"\0")
    d = b"".join(struct.pack("<HHIII", fl, reg, ln, off, 0) for fl, reg, ln, off in descs)
    return (hdr + d).ljust(512, b"\0")


frames = [(0, 0, 60, 1024 + i * 256) for i in range(4)]
chain = [(1, 0, 256, 1024), (1, 0, 256, 1280), (0, 0, 10, 1536)]
posted = [(0, 0, 256, 1024 + 16 * 256 + i * 256) for i in range(16)]
bufs = bytes(range(256)) * 32
for role, hdr in (("server", b"\1" + b"\0" * 7), ("client", b"\0\0\0\x10\0\0\0\0")):
    put("memif_ring", role + "_frames", hdr + ring(4, 0, frames) + ring(16, 0, posted) + bufs)
    put("memif_ring", role + "_chain", hdr + ring(3, 0, chain) + ring(16, 0, posted) + bufs)

# ---- offload: 17 header bytes (fuzz_offload.c: how the frame is held, the egress's
# capabilities, largest frame, chain cut, room, a virtio-net header), then the frame -----
def ol_frame(ipv, proto, plen, vlan=False):
    eth = b"\x02\0\0\0\0\x02\x02\0\0\0\0\x01"
    if vlan:
        eth += struct.pack(">HH", 0x8100, 42)
    l4 = (struct.pack(">HHIIBBHHH", 40000, 5201, 1000, 0, 0x80, 0x18, 502, 0, 0) +
          b"\1\1\x08\x0a" + b"\0" * 8) if proto == 6 else struct.pack(">HHHH", 40000, 5201,
                                                                        8 + plen, 0)
    payload = bytes((i * 7) & 0xff for i in range(plen))
    if ipv == 4:
        ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(l4) + plen, 1, 0x4000, 64, proto,
                         0, b"\x0a\0\0\x01", b"\x0a\0\0\x02")
        eth += b"\x08\x00"
    else:
        ip = struct.pack(">IHBB", 0x60000000, len(l4) + plen, proto, 64) + bytes(range(32))
        eth += b"\x86\xdd"
    return eth + ip + l4 + payload, len(eth) + len(ip), len(l4)


def ol_seed(name, how, caps, max_frame, cut, frame, gso, mss, room=255, flags=1):
    f, l23, l4 = frame
    vh = struct.pack("<BBHHHH", flags, gso, l23 + l4, mss, l23, 16 if l4 > 8 else 6)
    put("offload", name, bytes([how, caps]) + struct.pack("<HH", max_frame - 60, cut - 1) +
        bytes([room]) + vh + f)


ol_seed("tcp4_gso", 0, 0, 1514, 2048, ol_frame(4, 6, 4000), 1, 1448)
ol_seed("tcp4_gso_csum_egress", 0, 1, 1514, 2048, ol_frame(4, 6, 4000), 1, 1448)
ol_seed("tcp6_gso_chain", 1, 0, 1514, 333, ol_frame(6, 6, 3000), 4, 1428)
ol_seed("udp4_gso_jumbo", 2, 0, 9014, 1000, ol_frame(4, 17, 12000), 5, 8972)
ol_seed("udp6_gso_vlan", 0, 8, 1518, 2048, ol_frame(6, 17, 3000, True), 5, 1200)
ol_seed("tcp4_csum_shared", 4, 0, 1514, 2048, ol_frame(4, 6, 500), 0, 0)
ol_seed("udp6_csum_chain", 1, 0, 1514, 41, ol_frame(6, 17, 300), 0, 0)
# Raw metadata as librte_vhost sets it (TCP_CKSUM | TCP_SEG | IPV4, MSS, l2/l3/l4),
# checked (8) or handed to offload_fix as it is (16).
for how, name in ((8, "tcp4_raw_check"), (16, "tcp4_raw_fix")):
    put("offload", name, bytes([how, 0]) + struct.pack("<HH", 1514 - 60, 2047) + b"\xff" +
        struct.pack("<HHBBB", 0x49, 1448, 14, 20, 32) + b"\0" * 3 + ol_frame(4, 6, 4000)[0])

# ---- NRI requests (first byte: 0 request, 1 CPU list, 2 /proc/PID/cgroup) ------------
conf = {"podwiredSocket": "/run/podwire/podwired.sock", "stateDir": "/run/podwire/nri",
        "cgroupRoot": "/sys/fs/cgroup", "procRoot": "/proc"}
spec = {"resources": {"cpu": {"cpus": "0-1", "shares": 1024}},
        "cgroupsPath": "/k8s.io/abc", "namespaces": {"network": "/var/run/netns/x"},
        "annotations": {"podwire.io/cores": "0"}}
for state in ["create", "update", "delete", "pause", "resume"]:
    put("nri", "req_" + state, b"\0" + json.dumps({
        "version": "0.1", "state": state, "id": "abc", "sandboxID": "sb", "pid": 4242,
        "spec": spec, "conf": conf, "labels": {"a": "b"}, "results": []}).encode())
put("nri", "cpus", b"\x010-3,8,10-11")
put("nri", "cgroup_v1", b"\x0212:cpuset:/k8s.io/abc\n11:memory:/k8s.io/abc\n0::/\n")
put("nri", "cgroup_v2", b"\x020::/kubepods.slice/cri-containerd-abc.scope\n")

# ---- podwire-vdev's documents (first byte: the way in and options, see
# fuzz_vdev.c) -----------------------------------------------------------------
dev_vhost = {"type": "vhost-user", "version": "1.1.0",
             "vhost-user": {"mode": "client", "path": "/run/podwire/pods/a/net1.sock"}}
dev_memif = {"type": "memif", "version": "1.1.0",
             "memif": {"role": "client", "path": "/run/podwire/pods/a/net2.sock",
                       "mode": "ethernet"}}
pwjson = {"containerID": "0123abcd", "ifname": "net1", "mac": "02:00:00:00:0a:01",
          "ips": ["10.96.0.2/24"], "deviceInfo": dev_vhost}
status = [{"name": "podwire-net", "interface": "net1", "mac": "02:00:00:00:0a:01",
           "device-info": dev_vhost},
          {"name": "podwire-m", "interface": "net2", "mac": " 02:00:00:00:0a:02",
           "device-info": dev_memif}]
put("vdev", "devinfo", b"\0" + json.dumps(dev_vhost).encode())
put("vdev", "devinfo_memif_only", b"\4" + json.dumps(dev_memif).encode())
put("vdev", "podwire_json", b"\x18" + json.dumps(pwjson).encode())
put("vdev", "status", b"\x08" + json.dumps(status).encode())
put("vdev", "annotations", b"\0" + b"k8s.v1.cni.cncf.io/network-status=" +
    json.dumps(json.dumps(status)).encode() + b"\nother=\"x\"\n")
put("vdev", "cdi_env", b"\1" + json.dumps(dev_memif).encode())
put("vdev", "docker", b"\2" + json.dumps(pwjson).encode())
put("vdev", "mac_given", b"\x20" + json.dumps(dev_vhost).encode())
dev_vhost_q = {"type": "vhost-user", "version": "1.1.0",
               "vhost-user": {"mode": "client", "path": "/run/podwire/pods/a/net1.sock",
                              "queues": 2}}
put("vdev", "queues", b"\0" + json.dumps(dev_vhost_q).encode())
put("vdev", "queues_count", b"\x48" + json.dumps(
    [dict(status[0], **{"device-info": dev_vhost_q}), status[1]]).encode())

# ---- Docker driver calls (fuzz_docker.c: call index, 2 bytes of length, body;
# 0xff then the driver's state file) ------------------------------------------
R = {"Activate": 0, "GetCapabilities": 1, "CreateNetwork": 2, "DeleteNetwork": 3,
     "CreateEndpoint": 6, "DeleteEndpoint": 7, "EndpointOperInfo": 8, "Join": 9, "Leave": 10,
     "ProgramExternalConnectivity": 11, "DiscoverNew": 13}


def calls(*seq):
    out = b""
    for name, body in seq:
        b = body if isinstance(body, bytes) else json.dumps(body).encode()
        out += struct.pack("<BH", R[name], len(b)) + b
    return out


NID, EID = "a1" * 32, "b2" * 32
for iftype in ["kernel", "vhost-user", "memif"]:
    net = {"NetworkID": NID, "Options": {"com.docker.network.generic": {
        "podwire.iftype": iftype, "podwire.vlan": "10", "podwire.mode": "bridge",
        "com.docker.network.driver.mtu": "1500"}},
        "IPv4Data": [{"AddressSpace": "", "Pool": "10.96.0.0/24", "Gateway": "10.96.0.1/24"}],
        "IPv6Data": []}
    ids = {"NetworkID": NID, "EndpointID": EID}
    if iftype != "kernel":
        net["Options"]["com.docker.network.generic"]["podwire.queues"] = "2"
    put("docker", "lifecycle_" + iftype, calls(
        ("Activate", b""), ("GetCapabilities", b""), ("CreateNetwork", net),
        ("CreateEndpoint", dict(ids, Interface={"Address": "10.96.0.2/24",
                                                 "AddressIPv6": "", "MacAddress": ""},
                                Options={})),
        ("EndpointOperInfo", ids),
        ("Join", dict(ids, SandboxKey="/var/run/docker/netns/abc", Options={})),
        ("ProgramExternalConnectivity", dict(ids, Options={})),
        ("Leave", ids), ("DeleteEndpoint", ids), ("DeleteNetwork", {"NetworkID": NID})))
put("docker", "endpoint_queues", calls(
    ("CreateNetwork", {"NetworkID": NID, "Options": {"com.docker.network.generic": {
        "podwire.iftype": "memif"}}, "IPv4Data": [{"Pool": "10.98.0.0/24"}]}),
    ("CreateEndpoint", {"NetworkID": NID, "EndpointID": EID,
                        "Interface": {"Address": "10.98.0.2/24"},
                        "Options": {"podwire.queues": "3",
                                    "com.docker.network.endpoint.exposedports": []}}),
    ("EndpointOperInfo", {"NetworkID": NID, "EndpointID": EID})))
put("docker", "shared_network", calls(("CreateNetwork", {
    "NetworkID": NID, "Options": {"com.docker.network.generic": {"podwire.network": "shared"}},
    "IPv4Data": [{"Pool": "10.97.0.0/24"}], "IPv6Data": []})))
put("docker", "discover", calls(("DiscoverNew", {"DiscoveryType": 1, "DiscoveryData": {}})))
put("docker", "state", b"\xff" + json.dumps({"version": 1, "networks": [
    {"id": NID, "podwired_network": "docker-a1a1", "created": True, "iftype": "kernel", "mtu": 1500,
     "gateway4": "10.96.0.1", "gateway6": ""}], "endpoints": [
    {"id": EID, "network_id": NID, "port": "docker-b2b2", "iftype": "kernel",
     "mac": "02:42:0a:60:00:02", "address": "10.96.0.2/24", "iface": "pwcb2",
     "host_iface": "pwdb2", "created": 1}]}).encode())

print("seeds written under", OUT)

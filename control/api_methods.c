/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The method table: what each method of the API takes (its parameters,
 * with their types, bounds and help) and what it returns. api.c frames
 * and checks messages against it; podwirectl and the daemon's help print
 * it.
 */
#include "api.h"

/* Parameters with bounds (api.h): an integer of min-max in unit; a string
 * of at most max bytes. The help says what the value is, not its range:
 * messages add the range from here. */
#define INT(name, req, help, lo, hi, unit)                                                         \
	{                                                                                          \
		name, API_T_INT, req, help, NULL, lo, hi, unit                                     \
	}
#define STR(name, req, help, max)                                                                  \
	{                                                                                          \
		name, API_T_STRING, req, help, NULL, 0, max, "bytes"                               \
	}

/* Defaults in the help, from api.h. */
#define XSTR(x)	 XSTR_(x)
#define XSTR_(x) #x

static const struct api_field no_params[] = {{NULL}};
#define SYSTEM_INFO_params  no_params
#define NETWORK_LIST_params no_params
#define CDI_LIST_params	    no_params

static const struct api_field NETWORK_CREATE_params[] = {
    STR(API_F_NAME, true, "characters of [A-Za-z0-9._-]", API_NAME_MAX),
    {API_F_MODE, API_T_STRING, false, "\"bridge\" (default) or \"xconnect\""},
    INT(API_F_VLAN, false, "0 for none", 0, API_VLAN_MAX, "VLAN id"),
    INT(API_F_MAC_LIMIT, false, "MACs the network may learn (default " XSTR(API_NET_MAC_LIMIT) ")",
	1, API_NET_MAC_LIMIT_MAX, "MACs"),
    INT(API_F_FLOOD_LIMIT, false,
	"default for its ports: broadcast, multicast and unknown-unicast frames per second a "
	"port may send, 0 for no limit (default " XSTR(API_FLOOD_LIMIT) ")",
	0, API_FLOOD_LIMIT_MAX, "frames/s"),
    {NULL}};

static const struct api_field name_only_params[] = {
    STR(API_F_NAME, true, "the name of an existing object", API_NAME_MAX), {NULL}};
#define NETWORK_DELETE_params name_only_params
#define PORT_DELETE_params    name_only_params
#define PORT_GET_params	      name_only_params

/* A rate limit's three fields (policer/): a rate in frames/s or bits/s
 * (0: no limit) and its burst. */
#define RATE_PARAMS(pps, bps, burst, what)                                                         \
	INT(pps, false, "frames per second " what ", 0 for no limit; not with bps", 0,             \
	    API_RATE_PPS_MAX, "frames/s"),                                                         \
	    INT(bps, false,                                                                        \
		"bits per second " what " (Ethernet frames, no preamble or gap), 0 for no "        \
		"limit; not with pps",                                                             \
		0, API_RATE_BPS_MAX, "bits/s"),                                                    \
	    INT(burst, false,                                                                      \
		"frames (pps) or bytes (bps) that may pass at once; default 100 ms of the rate, "  \
		"at least 32 frames or two of the largest frames",                                 \
		1, API_RATE_BURST_MAX, "frames or bytes")

static const struct api_field PORT_CREATE_params[] = {
    STR(API_F_NAME, true, "characters of [A-Za-z0-9._-]", API_NAME_MAX),
    STR(API_F_NETWORK, true, "the name of an existing network", API_NAME_MAX),
    {API_F_TYPE, API_T_STRING, true,
     "a port kind such as \"vhost-user\" or \"memif\"; `podwirectl info` lists them"},
    STR(API_F_SOCKET, false, "an absolute path in an existing directory", API_SOCKET_PATH_MAX),
    {API_F_MODE, API_T_STRING, false,
     "\"server\" (podwired creates the socket, default) or \"client\""},
    {API_F_MAC, API_T_STRING, false, "a unicast MAC such as 02:00:00:00:00:01"},
    INT(API_F_MTU, false, "the largest frame payload (default " XSTR(API_MTU_DEFAULT) ")",
	API_MTU_MIN, API_MTU_MAX, "bytes"),
    STR(API_F_SECRET, false, "memif secret, without ',' or '='", API_SECRET_MAX),
    STR(API_F_IFACE, false,
	"af_xdp/af_packet: an existing kernel interface; veth: the host end to make",
	API_IFNAME_MAX),
    STR(API_F_PCI, false, "pci: a PCI address such as 0000:01:10.2", API_PCI_ADDR_MAX),
    {API_F_PORT_SECURITY, API_T_BOOL, false,
     "true: on a bridge, only frames from the port's MAC (and allowed_macs) are taken; the "
     "default for pod ports given a MAC"},
    STR(API_F_ALLOWED_MACS, false,
	"up to " XSTR(API_ALLOWED_MACS_MAX) " more source MACs the pod may use, comma separated",
	API_ALLOWED_MACS_LEN),
    INT(API_F_MAC_LIMIT, false,
	"MACs the port may have learned (default " XSTR(API_PORT_MAC_LIMIT) "; uplinks " XSTR(
	    API_PORT_MAC_LIMIT_MAX) ")",
	1, API_PORT_MAC_LIMIT_MAX, "MACs"),
    INT(API_F_FLOOD_LIMIT, false,
	"broadcast, multicast and unknown-unicast frames per second the port may send, 0 for no "
	"limit (default: its network's; uplinks 0)",
	0, API_FLOOD_LIMIT_MAX, "frames/s"),
    INT(API_F_TX_RETRIES, false,
	"times a full ring (a pod's receive ring, an uplink's tx ring) is tried again at once "
	"(default " XSTR(API_TX_RETRIES) ")",
	0, API_TX_RETRIES_MAX, "tries"),
    INT(API_F_QUEUES, false,
	"vhost-user: queue pairs offered (VIRTIO_NET_F_MQ; the pod enables what it uses); memif "
	"client: rings made; uplinks: rx queues (RSS). Default 1",
	1, API_QUEUES_MAX, "queue pairs"),
    STR(API_F_RXQ_PINS, false,
	"rx queues pinned on workers, QUEUE:CORE comma separated (as `queue pin` sets them; the "
	"others go where the load is lowest)",
	API_RXQ_PINS_LEN),
    {API_F_IO, API_T_STRING, false,
     "veth: \"packet\" (AF_PACKET, offloads on; default) or \"xdp\" (AF_XDP, offloads off)"},
    {API_F_RINGS, API_T_STRING, false,
     "vhost-user: whose code moves the rings: \"librte\" (librte_vhost's data path; default) or "
     "\"podwire\" (podwired's own, one copy and no mbuf: faster at 1518 B, slower at 64 B "
     "today). A guest that negotiated host offloads always gets librte_vhost's"},
    {API_F_OFFLOADS, API_T_BOOL, false,
     "vhost-user: offer checksum and TCP segmentation offloads (VIRTIO_NET_F_CSUM, GUEST_CSUM, "
     "HOST_TSO4/6, GUEST_TSO4/6); default true, false offers none"},
    RATE_PARAMS(API_F_RATE_IN_PPS, API_F_RATE_IN_BPS, API_F_RATE_IN_BURST, "the pod sends"),
    RATE_PARAMS(API_F_RATE_OUT_PPS, API_F_RATE_OUT_BPS, API_F_RATE_OUT_BURST, "the pod receives"),
    {NULL}};

static const struct api_field PORT_LIST_params[] = {
    STR(API_F_NETWORK, false, "the name of an existing network", API_NAME_MAX), {NULL}};

static const struct api_field stats_params[] = {
    STR(API_F_PORT, false, "the name of an existing port", API_NAME_MAX), {NULL}};
#define STATS_GET_params   stats_params
#define STATS_CLEAR_params stats_params

static const struct api_field MAC_LIST_params[] = {
    STR(API_F_NETWORK, true, "the name of an existing network", API_NAME_MAX), {NULL}};

static const struct api_field VF_LIST_params[] = {
    STR(API_F_PHYSNET, false, "a physical network named in --physnets", API_NAME_MAX), {NULL}};

static const struct api_field VF_ALLOC_params[] = {
    STR(API_F_PHYSNET, true, "a physical network named in --physnets", API_NAME_MAX),
    {API_F_OWNER, API_T_STRING, true,
     "who holds the VF, e.g. \"<containerID>/<ifname>\"; one VF per owner and physnet"},
    INT(API_F_VLAN, false, "set on the VF through its PF, 0 for none", 0, API_VLAN_MAX, "VLAN id"),
    {API_F_MAC, API_T_STRING, false, "a unicast MAC set on the VF through its PF"},
    {API_F_SPOOFCHK, API_T_BOOL, false, "true or false: the PF's spoof check for the VF"},
    {API_F_TRUST, API_T_BOOL, false, "true or false: the PF's trust setting for the VF"},
    {NULL}};

static const struct api_field VF_RELEASE_params[] = {
    STR(API_F_PCI, false, "the PCI address of an allocated VF", API_PCI_ADDR_MAX),
    {API_F_OWNER, API_T_STRING, false, "release every VF this owner holds"},
    {NULL}};

static const struct api_field CAPTURE_START_params[] = {
    {API_F_PORTS, API_T_STRING, true,
     "1-" XSTR(
	 API_CAPTURE_PORTS) " names of existing ports, comma separated, e.g. \"pod-a,pod-b\""},
    {API_F_DIRECTION, API_T_STRING, false, "\"rx\", \"tx\" or \"both\" (default)"},
    INT(API_F_COUNT, false, "stop after this many, 0 for no limit (default)", 0,
	API_CAPTURE_COUNT_MAX, "frames"),
    INT(API_F_DURATION, false, "stop after this long, 0 for no limit (default)", 0,
	API_CAPTURE_DURATION_MAX, "seconds"),
    INT(API_F_SNAPLEN, false, "kept of each frame (default " XSTR(API_SNAPLEN_MAX) ")",
	API_SNAPLEN_MIN, API_SNAPLEN_MAX, "bytes"),
    {API_F_FILTER, API_T_STRING, false,
     "a tcpdump (libpcap) filter expression such as \"udp port 53\""},
    {NULL}};
#define CAPTURE_LIST_params no_params
#define TRACE_SHOW_params   no_params
#define TRACE_CLEAR_params  no_params

static const struct api_field TRACE_ADD_params[] = {
    INT(API_F_COUNT, true, "frames to record", 1, API_TRACE_MAX, "frames"),
    STR(API_F_PORT, false, "only frames received on this port (default: any port)", API_NAME_MAX),
    {NULL}};

static const struct api_field QUEUE_LIST_params[] = {
    STR(API_F_PORT, false, "only this port's queues (default: every port)", API_NAME_MAX), {NULL}};

static const struct api_field QUEUE_PIN_params[] = {
    STR(API_F_PORT, true, "the name of an existing port", API_NAME_MAX),
    INT(API_F_QUEUE, true, "one of its rx queues, from 0", 0, API_QUEUES_MAX - 1, "queue"),
    INT(API_F_WORKER, true, "the core of a worker (`podwirectl info` lists them)", 0, 1023, "core"),
    {NULL}};

static const struct api_field QUEUE_UNPIN_params[] = {
    STR(API_F_PORT, true, "the name of an existing port", API_NAME_MAX),
    INT(API_F_QUEUE, true, "one of its rx queues, from 0", 0, API_QUEUES_MAX - 1, "queue"),
    {NULL}};

static const struct api_field QUEUE_BALANCE_params[] = {
    {API_F_ENABLED, API_T_BOOL, false, "true: move rx queues by load every interval"},
    INT(API_F_INTERVAL, false, "seconds between checks, over which loads are measured", 1, 86400,
	"seconds"),
    INT(API_F_THRESHOLD, false, "move only when the busiest worker is this busy", 1, 100, "%"),
    INT(API_F_IMPROVEMENT, false,
	"and a new placement narrows the busiest-idlest gap by this share", 1, 100, "%"),
    {API_F_RUN, API_T_BOOL, false, "true: check now, whatever the interval"},
    {NULL}};

static const struct api_field POLICER_SET_params[] = {
    STR(API_F_PORT, true, "the name of an existing port", API_NAME_MAX),
    {API_F_DIRECTION, API_T_STRING, false,
     "\"ingress\" (what the pod sends), \"egress\" (what it receives) or \"both\" (default)"},
    RATE_PARAMS(API_F_PPS, API_F_BPS, API_F_BURST, "through the port"),
    {NULL}};

static const struct api_field POLICER_DEL_params[] = {
    STR(API_F_PORT, true, "the name of an existing port", API_NAME_MAX),
    {API_F_DIRECTION, API_T_STRING, false, "\"ingress\", \"egress\" or \"both\" (default)"},
    {NULL}};

#undef RATE_PARAMS
static const struct api_field MIRROR_CREATE_params[] = {
    STR(API_F_NAME, true, "the mirror's name: characters of [A-Za-z0-9._-]", API_NAME_MAX),
    STR(API_F_PORTS, true,
	"1-16 names of existing ports whose frames are copied, comma separated, e.g. "
	"\"pod-a,pod-b\"",
	16 * (API_NAME_MAX + 1)),
    {API_F_DIRECTION, API_T_STRING, false,
     "\"ingress\" (what the ports send), \"egress\" (what they receive) or \"both\" "
     "(default)"},
    STR(API_F_TO, true,
	"the port the copies go to (a pod's port, or an uplink); it receives nothing else while "
	"it is one",
	API_NAME_MAX),
    STR(API_F_ACL, false,
	"an access list (acl.set): only the frames it permits are copied (all are still "
	"forwarded); none: every frame",
	API_NAME_MAX),
    {NULL}};
#define MIRROR_DEL_params  name_only_params
#define MIRROR_LIST_params no_params
static const struct api_field ACL_SET_params[] = {
    STR(API_F_NAME, true, "characters of [A-Za-z0-9._-]", API_NAME_MAX),
    {API_F_DEFAULT, API_T_STRING, false,
     "\"permit\" or \"deny\" (default): what a frame no rule matches gets"},
    {API_F_RULES, API_T_ARRAY, true,
     "up to " XSTR(API_ACL_RULES_MAX) " rule objects, first match wins: {\"action\": "
				      "\"permit\"|\"deny\"|\"permit+reflect\", and any of src_mac, "
				      "dst_mac, ethertype, vlan "
				      "(0-4095 or \"untagged\"), src, dst (prefixes), proto "
				      "(number or tcp, udp, icmp, ...), "
				      "sport, dport (N or \"A-B\"), tcp_flags (\"SYN,!ACK\" or "
				      "\"0x02/0x12\")}"},
    {NULL}};
#define ACL_DEL_params	name_only_params
#define ACL_LIST_params no_params

static const struct api_field ACL_SHOW_params[] = {
    STR(API_F_NAME, true, "the name of an existing list", API_NAME_MAX),
    INT(API_F_FIRST, false, "the first rule shown (default 0)", 0, API_ACL_RULES_MAX - 1, "rule"),
    INT(API_F_COUNT, false, "rules shown at most (default " XSTR(API_ACL_SHOW_MAX) ")", 1,
	API_ACL_SHOW_MAX, "rules"),
    {NULL}};

static const struct api_field ACL_ATTACH_params[] = {
    STR(API_F_NAME, true, "the name of an existing list", API_NAME_MAX),
    STR(API_F_PORT, false, "a port (give a port or a network)", API_NAME_MAX),
    STR(API_F_NETWORK, false, "a network: every port of it", API_NAME_MAX),
    {API_F_DIRECTION, API_T_STRING, true,
     "\"ingress\" (frames the port receives from its pod or wire) or \"egress\" (frames "
     "sent to it)"},
    {NULL}};

static const struct api_field ACL_DETACH_params[] = {
    STR(API_F_NAME, true, "the name of an attached list", API_NAME_MAX),
    STR(API_F_PORT, false, "a port (give a port or a network)", API_NAME_MAX),
    STR(API_F_NETWORK, false, "a network", API_NAME_MAX),
    {API_F_DIRECTION, API_T_STRING, false, "\"ingress\" or \"egress\" (default: both)"},
    {NULL}};

static const struct api_field ACL_TIMEOUTS_params[] = {
    INT(API_F_TCP, false, "idle time after which a TCP session ends (default 3600)", 1,
	API_ACL_TIMEOUT_MAX, "seconds"),
    INT(API_F_UDP, false, "the same for UDP (default 120)", 1, API_ACL_TIMEOUT_MAX, "seconds"),
    INT(API_F_OTHER, false, "the same for other protocols (default 60)", 1, API_ACL_TIMEOUT_MAX,
	"seconds"),
    {NULL}};
#define ACL_SESSIONS_params no_params

#undef INT
#undef STR

/* ---- results ---------------------------------------------------------- */

#define S(name, help)                                                                              \
	{                                                                                          \
		name, API_T_STRING, true, help                                                     \
	}
#define I(name, help)                                                                              \
	{                                                                                          \
		name, API_T_INT, true, help                                                        \
	}
#define N(name, help)                                                                              \
	{                                                                                          \
		name, API_T_NUMBER, true, help                                                     \
	}
#define B(name, help)                                                                              \
	{                                                                                          \
		name, API_T_BOOL, true, help                                                       \
	}
#define O(name, help, m)                                                                           \
	{                                                                                          \
		name, API_T_OBJECT, true, help, m                                                  \
	}
#define A(name, help, m)                                                                           \
	{                                                                                          \
		name, API_T_ARRAY, true, help, m                                                   \
	}
#define OPT(type, name, help)                                                                      \
	{                                                                                          \
		name, type, false, help                                                            \
	}

static const struct api_field no_results[] = {{NULL}};
#define NETWORK_DELETE_results no_results
#define PORT_DELETE_results    no_results

static const struct api_field kind_results[] = {
    S(API_F_NAME, "the value of port.create \"type\""),
    S(API_R_SUMMARY, "what the kind is"),
    A(API_R_FIELDS, "the port.create fields it takes besides name, network, mac, mtu", NULL),
    B(API_R_UPLINK, "true for uplinks (a device shared by networks, VLAN-tagged)"),
    {NULL}};

/* stats.get's workers carry no port list, system.info's do. */
static const struct api_field worker_results[] = {
    I(API_R_LCORE, "the worker's core"),
    N(API_R_BUSY_CYCLES, "TSC cycles spent in loop turns that moved frames"),
    N(API_R_IDLE_CYCLES, "TSC cycles spent in empty loop turns"),
    N(API_R_SLEEPS, "idle naps taken (--idle-sleep-max)"),
    N(API_R_SLEEP_US, "microseconds of naps asked for"),
    {API_R_PORTS, API_T_ARRAY, false, "names of the ports it polls"},
    {NULL}};

/* For leak checks: exact figures, the same after a create/delete cycle. */
static const struct api_field memory_results[] = {
    N(API_R_HEAP_BYTES, "malloc'd bytes in use (mallinfo2: in use plus mmapped)"),
    N(API_R_DPDK_HEAP_BYTES, "bytes allocated from DPDK's hugepage heaps"),
    N(API_R_DPDK_ALLOCS, "allocations live in DPDK's heaps"),
    I(API_R_FDS, "open file descriptors"),
    {NULL}};

static const struct api_field SYSTEM_INFO_results[] = {
    S(API_R_VERSION, "podwire's version"),
    S(API_R_API_VERSION, "the API version, MAJOR.MINOR"),
    I(API_R_PID, "podwired's process id"),
    S(API_F_SOCKET, "the API socket"),
    S(API_R_STATE_DIR, "where state.json lives"),
    I(API_R_MAIN_CORE, "the control thread's core"),
    N(API_R_UPTIME, "seconds since start"),
    N(API_R_TSC_HZ, "TSC frequency: cycles per second"),
    S(API_R_RUNTIME_DIR, "DPDK's runtime directory (telemetry socket)"),
    I(API_R_NETWORKS, "how many networks"),
    I(API_R_PORTS, "how many ports"),
    N(API_R_MAC_ENTRIES, "learned MAC addresses, all networks"),
    I(API_R_MAC_AGING, "seconds a MAC is kept unseen"),
    B(API_R_READY, "true once state is restored"),
    A(API_R_WORKERS, "per worker: core, cycles, ports", worker_results),
    A(API_R_KINDS, "the port kinds this podwired offers", kind_results),
    O(API_R_MEMORY, "heap, hugepage heap and fds in use now", memory_results),
    {NULL}};

static const struct api_field network_results[] = {
    S(API_F_NAME, "the network's name"),
    S(API_F_MODE, "bridge or xconnect"),
    I(API_F_VLAN, "VLAN id, 0 for none"),
    I(API_F_MAC_LIMIT, "MACs it may learn"),
    I(API_F_FLOOD_LIMIT, "copies per second its ports' floods may make beyond one destination, by "
			 "default; 0: no limit"),
    A(API_R_PORTS, "names of its ports", NULL),
    {NULL}};
#define NETWORK_CREATE_results network_results

static const struct api_field NETWORK_LIST_results[] = {
    A(API_R_NETWORKS, "every network", network_results), {NULL}};

static const struct api_field uplink_results[] = {
    S(API_R_DEVICE, "interface name or PCI address"),
    S(API_R_DRIVER, "what carries it: af_xdp, af_packet, pci (driver)"),
    I(API_F_VLAN, "the tag this port's frames carry on the wire, 0 for none"),
    I(API_R_PORTS_ON_DEVICE, "uplink ports sharing the device"),
    N(API_R_UNKNOWN_VLAN, "device-wide: frames whose VLAN no network has"),
    N(API_R_STASH_FULL, "device-wide: frames dropped as stash_full"),
    I(API_R_TX_QUEUES, "the device's tx queues: one per worker where it has enough"),
    B(API_R_TX_LOCKED, "workers outnumber tx queues: each tx queue is locked per burst"),
    S(API_R_RX_SPREAD, "how frames are spread over its rx queues (\"queues\"): rss, the "
		       "interface's rss (AF_XDP), fanout hash (AF_PACKET), none (one queue)"),
    {NULL}};

static const struct api_field memif_results[] = {
    S(API_R_STATE, "listening, backing-off (a server not taking connections for backoff_ms), "
		   "connecting, handshake or connected"),
    S(API_R_PEER, "the peer's name, \"\" when none"),
    I(API_R_QUEUE_PAIRS, "queue pairs in use"),
    I(API_R_RING_SIZE, "slots per ring"),
    I(API_R_REGIONS, "shared memory regions"),
    N(API_R_MAPPED_BYTES, "bytes of them mapped"),
    N(API_R_CONNECTS, "connections since the port was made"),
    N(API_R_DISCONNECTS, "disconnections since"),
    S(API_R_LAST_DISCONNECT, "why the last connection ended or failed"),
    N(API_R_REFUSED, "peers turned away since the port was made: it had one already"),
    I(API_R_FLAPS, "connections in a row that ended before they were up or within 1 s"),
    I(API_R_BACKOFF_MS, "after flaps: how long podwired waits to take or make the next"),
    {NULL}};

static const struct api_field vhost_results[] = {
    S(API_R_STATE, "listening, connecting, handshake or connected"),
    N(API_R_CONNECTS, "connections accepted since the port was made"),
    N(API_R_DISCONNECTS, "connections ended since"),
    N(API_R_REFUSED_CONNS, "connections refused: a second frontend, or one in its back-off"),
    N(API_R_REFUSED_MSGS,
      "messages refused (bad memory, fds or features): each ends its connection"),
    N(API_R_FAULTS, "connections ended because the frontend's memory faulted (SIGBUS)"),
    S(API_R_LAST_DISCONNECT, "why the last connection ended or was refused"),
    OPT(API_T_STRING, API_R_RINGS_ACTIVE,
	"connected: podwire (podwired's own rings) or librte (librte_vhost's data path)"),
    OPT(API_T_INT, API_R_TOO_LONG,
	"podwired's rings: frames dropped as larger than the buffers the guest posts (no "
	"mergeable buffers)"),
    OPT(API_T_ARRAY, API_R_NEGOTIATED,
	"offload features the connected guest negotiated, as QEMU names them (csum, guest_csum, "
	"host_tso4, host_tso6, guest_tso4, guest_tso6)"),
    {NULL}};

static const struct api_field veth_results[] = {
    S(API_R_PEER, "the container's end of the pair, until moved and renamed"),
    S(API_R_DRIVER, "af_packet, or af_xdp (\"io\": \"xdp\"; af_packet where XDP is unavailable)"),
    S(API_R_STATE, "up, down (the container's end is down) or gone (it went with its namespace)"),
    I(API_R_IFINDEX, "the host end's interface index"),
    S(API_F_IO, "packet or xdp: the I/O in use"),
    OPT(API_T_INT, API_R_KERNEL_DROPS,
	"packet I/O: frames the kernel dropped on their way to podwired (ring or socket full)"),
    {NULL}};

static const struct api_field stats_results[] = {
    S(API_F_NAME, "the port"),
    N(API_R_RX_PACKETS, "frames received from the port"),
    N(API_R_RX_BYTES, "bytes received"),
    N(API_R_TX_PACKETS, "frames sent to the port"),
    N(API_R_TX_BYTES, "bytes sent"),
    O(API_R_DROPS, "frames dropped, by reason", NULL),
    N(API_R_LEARN_LIMIT, "source MACs not learned: the port or network was at its limit"),
    N(API_F_TX_RETRIES, "tries again of a full ring"),
    N(API_R_MACS_LEARNED, "MACs learned on the port now"),
    OPT(API_T_NUMBER, API_R_KERNEL_DROPS,
	"veth, af_xdp: frames the kernel dropped on their way in, its socket or ring being full "
	"(absent: the kind reads through no kernel socket)"),
    {NULL}};

static const struct api_field port_results[] = {
    S(API_F_NAME, "the port's name"),
    S(API_F_NETWORK, "its network"),
    S(API_F_TYPE, "its kind"),
    OPT(API_T_STRING, API_F_SOCKET, "vhost-user, memif: the socket path"),
    OPT(API_T_STRING, API_F_MODE, "vhost-user, memif: server or client"),
    OPT(API_T_STRING, API_F_IFACE, "af_xdp, af_packet: the kernel interface"),
    OPT(API_T_STRING, API_F_PCI, "pci: the device's address"),
    S(API_F_MAC, "the pod's MAC"),
    I(API_F_MTU, "largest frame payload"),
    B(API_F_PORT_SECURITY, "whether only its MACs are taken as source"),
    OPT(API_T_STRING, API_F_ALLOWED_MACS, "the other source MACs it may use"),
    I(API_F_MAC_LIMIT, "MACs it may have learned"),
    I(API_F_FLOOD_LIMIT,
      "copies per second its floods may make beyond one destination, 0: no limit"),
    I(API_F_TX_RETRIES, "tries again of a full ring"),
    OPT(API_T_INT, API_F_QUEUES,
	"queue pairs asked for (port.create \"queues\"; none when failed)"),
    OPT(API_T_INT, API_R_RX_QUEUES,
	"rx queues it has (memif: as many rings as a peer may bring; none when failed)"),
    OPT(API_T_STRING, API_F_RXQ_PINS, "its rx queues pinned on workers, QUEUE:CORE"),
    OPT(API_T_STRING, API_F_IO, "veth: the I/O asked for, packet or xdp"),
    OPT(API_T_BOOL, API_F_OFFLOADS,
	"false: the port offers no offloads (port.create \"offloads\")"),
    OPT(API_T_STRING, API_F_RINGS,
	"vhost-user: \"podwire\" when asked for (port.create \"rings\")"),
    OPT(API_T_INT, API_F_RATE_IN_PPS, "rate limit of what the pod sends, frames/s"),
    OPT(API_T_INT, API_F_RATE_IN_BPS, "rate limit of what the pod sends, bits/s"),
    OPT(API_T_INT, API_F_RATE_IN_BURST, "and its burst, frames or bytes"),
    OPT(API_T_INT, API_F_RATE_OUT_PPS, "rate limit of what the pod receives, frames/s"),
    OPT(API_T_INT, API_F_RATE_OUT_BPS, "rate limit of what the pod receives, bits/s"),
    OPT(API_T_INT, API_F_RATE_OUT_BURST, "and its burst, frames or bytes"),
    S(API_F_LINK, "up, down, or failed: podwired could not make it at start-up (see reason)"),
    OPT(API_T_STRING, API_R_REASON,
	"failed ports: why, and the fix; podwired tries again at its next start, `port del` "
	"deletes it"),
    OPT(API_T_INT, API_F_WORKER, "the core of the worker polling it (none when failed)"),
    {API_R_UPLINK, API_T_OBJECT, false, "uplinks: the device", uplink_results},
    {API_R_MEMIF, API_T_OBJECT, false, "memif: the connection", memif_results},
    {API_R_VHOST, API_T_OBJECT, false, "vhost-user: the connection", vhost_results},
    {API_R_VETH, API_T_OBJECT, false, "veth: the pair", veth_results},
    {API_R_STATS, API_T_OBJECT, false, "port.get: counters", stats_results},
    {NULL}};
#define PORT_CREATE_results port_results
#define PORT_GET_results    port_results
#define POLICER_SET_results port_results
#define POLICER_DEL_results port_results

static const struct api_field PORT_LIST_results[] = {A(API_R_PORTS, "the ports", port_results),
						     {NULL}};

static const struct api_field STATS_GET_results[] = {
    A(API_R_PORTS, "per port counters", stats_results),
    A(API_R_WORKERS, "per worker cycles", worker_results),
    {NULL}};

static const struct api_field STATS_CLEAR_results[] = {I(API_R_CLEARED, "ports cleared"), {NULL}};

static const struct api_field mac_results[] = {S(API_F_MAC, "a learned address"),
					       S(API_F_PORT, "where it was seen"),
					       N(API_R_AGE, "seconds since it was last seen"),
					       {NULL}};

static const struct api_field mac_port_results[] = {
    S(API_F_NAME, "a port of the network"),
    I(API_R_MACS_LEARNED, "MACs learned from it"),
    I(API_F_MAC_LIMIT, "how many it may have learned"),
    N(API_R_LEARN_LIMIT, "source MACs not learned because a limit was reached"),
    {NULL}};

static const struct api_field MAC_LIST_results[] = {
    S(API_F_NETWORK, "the network"),
    A(API_R_ENTRIES, "its learned MACs", mac_results),
    I(API_R_MACS_LEARNED, "how many"),
    I(API_F_MAC_LIMIT, "how many it may have learned"),
    A(API_R_PORTS, "learning per port", mac_port_results),
    {NULL}};

static const struct api_field pf_results[] = {S(API_R_PF, "the PF's netdev"),
					      S(API_F_PCI, "the PF's PCI address"),
					      I(API_R_FIRST_VF, "first VF index in the pool"),
					      I(API_R_LAST_VF, "last VF index"),
					      {NULL}};

static const struct api_field vf_results[] = {
    S(API_F_PCI, "the VF's PCI address"),
    S(API_R_PF, "its PF's netdev"),
    I(API_R_VF_INDEX, "its index on the PF"),
    S(API_R_DRIVER, "its driver now, \"\" when unbound"),
    I(API_R_IOMMU_GROUP, "its IOMMU group, null when none"),
    S(API_R_NETDEV, "its netdev, \"\" when none"),
    S(API_R_STATE, "free, used or unavailable"),
    S(API_F_OWNER, "who holds it, \"\" when free"),
    S(API_R_REASON, "why it is unavailable"),
    {NULL}};

static const struct api_field physnet_results[] = {
    S(API_F_PHYSNET, "the physnet"),
    I(API_R_TOTAL, "its VFs"),
    I(API_R_FREE, "free VFs"),
    I(API_R_USED, "allocated VFs"),
    I(API_R_UNAVAILABLE, "VFs that cannot be handed out"),
    A(API_R_PFS, "its PFs", pf_results),
    A(API_R_VFS, "its VFs", vf_results),
    {NULL}};

static const struct api_field VF_LIST_results[] = {A(API_R_PHYSNETS, "the pools", physnet_results),
						   {NULL}};

static const struct api_field VF_ALLOC_results[] = {
    S(API_F_PCI, "the VF's PCI address"),
    S(API_R_PF, "its PF's netdev"),
    S(API_R_PF_PCI, "its PF's PCI address"),
    I(API_R_VF_INDEX, "its index on the PF"),
    S(API_F_PHYSNET, "its physnet"),
    S(API_F_OWNER, "who holds it"),
    S(API_R_DRIVER, "its driver now (vfio-pci)"),
    S(API_R_ORIGINAL_DRIVER, "the driver it goes back to"),
    I(API_R_IOMMU_GROUP, "its IOMMU group, null when none"),
    S(API_R_VFIO_DEVICE, "the VFIO group device, e.g. /dev/vfio/42"),
    I(API_F_VLAN, "VLAN set through the PF, null when not set"),
    S(API_F_MAC, "MAC set through the PF, null when not set"),
    OPT(API_T_BOOL, API_F_SPOOFCHK, "spoof check set through the PF"),
    OPT(API_T_BOOL, API_F_TRUST, "trust set through the PF"),
    S(API_R_VF_CONFIG, "what the PF was told, in words"),
    {NULL}};

static const struct api_field released_results[] = {S(API_F_PCI, "the VF"),
						    S(API_R_PF, "its PF"),
						    I(API_R_VF_INDEX, "its index"),
						    S(API_F_PHYSNET, "its physnet"),
						    S(API_F_OWNER, "who held it"),
						    S(API_R_DRIVER, "its driver now"),
						    {NULL}};

static const struct api_field VF_RELEASE_results[] = {
    A(API_R_RELEASED, "the VFs given back", released_results), {NULL}};

static const struct api_field cdi_device_results[] = {
    S(API_F_NAME, "the qualified name for --device, e.g. podwire.io/port=pod-a"),
    S(API_R_KIND, "its kind, e.g. podwire.io/port"),
    S(API_R_DEVICE, "its name within the kind"),
    S(API_R_FILE, "the spec file it is in"),
    A(API_R_ENV, "the environment it gives a container", NULL),
    {NULL}};

static const struct api_field cdi_spec_results[] = {
    S(API_R_FILE, "the file name, e.g. podwire.io-port.json"),
    O(API_R_SPEC, "the CDI spec document, as written", NULL),
    {NULL}};

static const struct api_field cdi_skipped_results[] = {
    S(API_R_OBJECT, "what is not offered, e.g. port \"x\""),
    S(API_R_REASON, "why, and the fix"),
    {NULL}};

static const struct api_field CDI_LIST_results[] = {
    S(API_R_DIR, "where podwired keeps the spec files, \"\" when it writes none"),
    A(API_R_DEVICES, "the devices", cdi_device_results),
    A(API_R_SPECS, "the spec documents, one per kind that has a device", cdi_spec_results),
    A(API_R_SKIPPED, "ports and VFs that are no device, and why", cdi_skipped_results),
    {NULL}};

static const struct api_field capture_port_results[] = {
    S(API_F_NAME, "the port"),
    I(API_R_INTERFACE, "its interface id in the pcapng stream"),
    S(API_R_KIND, "its kind"),
    S(API_F_NETWORK, "its network"),
    {API_R_MATCHED, API_T_NUMBER, false, "capture.list: frames the filter took"},
    {API_R_SKIPPED, API_T_NUMBER, false,
     "capture.list: of those, not copied (the capture ring was full)"},
    {NULL}};

static const struct api_field CAPTURE_START_results[] = {
    I(API_R_ID, "the capture's id"),
    S(API_R_FORMAT, "pcapng: what follows the answer on this connection"),
    A(API_F_PORTS, "the ports, in interface order", capture_port_results),
    S(API_F_DIRECTION, "rx, tx or both"),
    I(API_F_COUNT, "frames after which it stops, 0: no limit"),
    I(API_F_DURATION, "seconds after which it stops, 0: no limit"),
    I(API_F_SNAPLEN, "bytes kept of each frame"),
    S(API_F_FILTER, "the filter expression, \"\" for none"),
    {NULL}};

static const struct api_field capture_results[] = {
    I(API_R_ID, "the capture's id"),
    A(API_F_PORTS, "its ports", capture_port_results),
    S(API_F_DIRECTION, "rx, tx or both"),
    S(API_F_FILTER, "its filter, \"\" for none"),
    I(API_F_SNAPLEN, "bytes kept of each frame"),
    N(API_R_MATCHED, "frames the filter took, all ports"),
    N(API_R_SKIPPED, "of those, not copied: the capture ring was full"),
    N(API_R_WRITTEN, "frames written to the stream"),
    N(API_R_WRITTEN_BYTES, "bytes written to the stream"),
    N(API_R_SECONDS, "seconds since it started"),
    {NULL}};

static const struct api_field CAPTURE_LIST_results[] = {
    A(API_R_CAPTURES, "running captures", capture_results), {NULL}};

static const struct api_field TRACE_ADD_results[] = {
    I(API_F_COUNT, "frames that will be recorded (added to any left)"),
    A(API_F_PORTS, "the ports watched", NULL),
    {NULL}};

static const struct api_field trace_out_results[] = {
    S(API_F_PORT, "a destination port (\"#N\" when deleted since)"),
    S(API_R_RESULT, "\"queued\", or the drop reason there"),
    {NULL}};

static const struct api_field trace_results[] = {
    I(API_R_SEQ, "order of arrival, from 1"),
    N(API_R_TIME, "seconds since the first trace add after a clear"),
    S(API_F_PORT, "the port it came in on"),
    S(API_F_NETWORK, "that port's network"),
    I(API_R_LEN, "bytes"),
    S(API_R_SRC, "source MAC"),
    S(API_R_DST, "destination MAC"),
    S(API_R_ETHERTYPE, "EtherType after any VLAN tag, e.g. 0x0800"),
    I(API_R_TAG, "the VLAN id it carried, 0: untagged"),
    S(API_R_VLAN_ACTION,
      "untagged, the network's tag removed, another VLAN's tag (dropped), or none (cross-connect)"),
    S(API_R_LOOKUP, "learned, flooded (broadcast/multicast), unknown (flooded), xconnect, none"),
    A(API_R_OUTPUTS, "where it went (at most 8 listed)", trace_out_results),
    I(API_R_DESTINATIONS, "destinations in all"),
    S(API_R_DROP, "the ingress drop reason, \"\" when it was not dropped there"),
    OPT(API_T_STRING, API_R_ACL, "the access list and rule that decided it at ingress"),
    {NULL}};

static const struct api_field TRACE_SHOW_results[] = {
    A(API_R_TRACES, "the recorded frames, oldest first", trace_results),
    I(API_R_REMAINING, "frames still to record"),
    {NULL}};

static const struct api_field TRACE_CLEAR_results[] = {I(API_R_CLEARED, "records forgotten"),
						       {NULL}};

static const struct api_field queue_results[] = {
    S(API_F_PORT, "the port"),
    I(API_F_QUEUE, "its rx queue"),
    I(API_F_WORKER, "the core of the worker polling it"),
    B(API_F_ENABLED, "whether the pod enabled it (only enabled queues are polled)"),
    B(API_R_PINNED, "pinned by `queue pin` (the balancer leaves it)"),
    B(API_R_FIXED, "placed by its kind (an uplink's ports share their device's worker)"),
    N(API_R_RX_PACKETS, "frames received over the last interval"),
    N(API_R_BUSY_CYCLES, "TSC cycles its polls took over the last interval"),
    N(API_R_BUSY_PCT, "those cycles as a share of one worker's"),
    N(API_R_RX_TOTAL, "frames received since the port was made"),
    N(API_R_BUSY_TOTAL, "TSC cycles its polls took since the port was made"),
    N(API_R_TX_TOTAL, "frames sent on its tx queue (kinds that count per queue)"),
    {NULL}};

static const struct api_field queue_worker_results[] = {
    I(API_R_LCORE, "the worker's core"),
    I(API_R_QUEUES, "enabled rx queues it polls"),
    N(API_R_BUSY_PCT, "their load over the last interval"),
    {NULL}};

static const struct api_field QUEUE_LIST_results[] = {
    A(API_R_QUEUES, "rx queues, by port and queue", queue_results),
    A(API_R_WORKERS, "workers", queue_worker_results),
    N(API_R_WINDOW, "seconds the interval figures cover"),
    {NULL}};

static const struct api_field QUEUE_PIN_results[] = {S(API_F_PORT, "the port"),
						     I(API_F_QUEUE, "the queue"),
						     I(API_F_WORKER, "its worker's core"),
						     {NULL}};
#define QUEUE_UNPIN_results QUEUE_PIN_results

static const struct api_field QUEUE_BALANCE_results[] = {
    B(API_F_ENABLED, "whether the balancer runs"),
    I(API_F_INTERVAL, "seconds between checks"),
    I(API_F_THRESHOLD, "% busy the busiest worker must be"),
    I(API_F_IMPROVEMENT, "% the gap must narrow by"),
    N(API_R_CHECKS, "checks run"),
    N(API_R_MOVES, "checks that moved queues"),
    N(API_R_LAST_MOVED, "queues the last move moved"),
    S(API_R_LAST, "what the last check decided, and why"),
    OPT(API_T_BOOL, API_R_MOVED, "run: whether this check moved queues"),
    {NULL}};

static const struct api_field MIRROR_CREATE_results[] = {
    S(API_F_NAME, "the mirror"),
    A(API_F_PORTS, "the ports it copies", NULL),
    S(API_F_DIRECTION, "ingress, egress or both"),
    S(API_F_TO, "the port the copies go to"),
    OPT(API_T_STRING, API_F_ACL, "the access list selecting what is copied"),
    {NULL}};
#define MIRROR_DEL_results no_results
static const struct api_field mirror_results[] = {
    S(API_F_NAME, "the mirror"),
    A(API_F_PORTS, "the ports it copies", NULL),
    S(API_F_DIRECTION, "ingress, egress or both"),
    S(API_F_TO, "the port the copies go to"),
    OPT(API_T_STRING, API_F_ACL, "the access list selecting what is copied"),
    N(API_R_COPIES, "copies the destination took"),
    N(API_R_DROPPED, "frames not copied there: its ring full or down, or no mbuf"),
    {NULL}};
static const struct api_field MIRROR_LIST_results[] = {
    A(API_R_MIRRORS, "the mirrors", mirror_results), {NULL}};
static const struct api_field acl_attach_results[] = {
    OPT(API_T_STRING, API_F_PORT, "the port"),
    OPT(API_T_STRING, API_F_NETWORK, "or the network (all its ports)"),
    S(API_F_DIRECTION, "ingress or egress"),
    {NULL}};

static const struct api_field ACL_SET_results[] = {
    S(API_F_NAME, "the list"),
    S(API_F_DEFAULT, "permit or deny"),
    I(API_F_RULES, "its rules"),
    B(API_R_REPLACED, "true: a list of that name was replaced (its counters start again)"),
    {NULL}};
#define ACL_DEL_results no_results

static const struct api_field acl_list_results[] = {
    S(API_F_NAME, "the list"),
    S(API_F_DEFAULT, "permit or deny"),
    I(API_F_RULES, "its rules"),
    A(API_R_ATTACHMENTS, "where it applies", acl_attach_results),
    {NULL}};

static const struct api_field ACL_LIST_results[] = {A(API_R_LISTS, "the lists", acl_list_results),
						    {NULL}};

static const struct api_field acl_rule_results[] = {
    I(API_R_INDEX, "its place in the list, from 0"),
    N(API_R_HITS, "frames it decided, since the list was last set"),
    S(API_F_ACTION, "permit, deny or permit+reflect"),
    OPT(API_T_STRING, API_F_SRC_MAC, "source MAC"),
    OPT(API_T_STRING, API_F_DST_MAC, "destination MAC"),
    OPT(API_T_STRING, API_F_ETHERTYPE, "EtherType after any VLAN tag, e.g. 0x0800"),
    OPT(API_T_STRING, API_F_VLAN, "the frame's VLAN id, or untagged"),
    OPT(API_T_STRING, API_F_SRC, "source prefix"),
    OPT(API_T_STRING, API_F_DST, "destination prefix"),
    OPT(API_T_STRING, API_F_PROTO, "IP protocol"),
    OPT(API_T_STRING, API_F_SPORT, "source port or range"),
    OPT(API_T_STRING, API_F_DPORT, "destination port or range"),
    OPT(API_T_STRING, API_F_TCP_FLAGS, "TCP flags VALUE/MASK"),
    {NULL}};

static const struct api_field ACL_SHOW_results[] = {
    S(API_F_NAME, "the list"),
    S(API_F_DEFAULT, "permit or deny"),
    A(API_F_RULES, "its rules, in order, from \"first\"", acl_rule_results),
    I(API_R_RULES_TOTAL, "rules in the list"),
    N(API_R_DEFAULT_HITS, "frames no rule matched"),
    N(API_R_SESSION_HITS, "frames a permit+reflect session let through without the list"),
    N(API_R_REPLACED_HITS, "frames the versions it replaced decided (rules and default)"),
    N(API_R_REPLACES, "times it was replaced"),
    A(API_R_ATTACHMENTS, "where it applies", acl_attach_results),
    {NULL}};

static const struct api_field ACL_ATTACH_results[] = {
    S(API_F_NAME, "the list"),
    OPT(API_T_STRING, API_F_PORT, "the port"),
    OPT(API_T_STRING, API_F_NETWORK, "or the network"),
    S(API_F_DIRECTION, "ingress, egress, or both (detach)"),
    {NULL}};
#define ACL_DETACH_results ACL_ATTACH_results

static const struct api_field ACL_TIMEOUTS_results[] = {
    I(API_F_TCP, "seconds"), I(API_F_UDP, "seconds"), I(API_F_OTHER, "seconds"), {NULL}};

static const struct api_field acl_worker_sessions[] = {
    I(API_R_LCORE, "the worker's core (as queue.list's workers, in the same order)"),
    N(API_R_LIVE, "sessions not yet idle past their timeout"),
    N(API_R_CREATED, "sessions it ever recorded"),
    N(API_R_EXPIRED, "sessions ended (idle, or their port deleted)"),
    N(API_R_FULL, "sessions it could not record: no room"),
    {NULL}};

static const struct api_field ACL_SESSIONS_results[] = {
    I(API_R_MAX, "sessions a worker may hold (podwired --acl-sessions)"),
    A(API_R_WORKERS, "per worker", acl_worker_sessions),
    {NULL}};

#undef S
#undef I
#undef N
#undef B
#undef O
#undef A
#undef OPT

const struct api_method_desc api_methods[API_METHOD_COUNT] = {
#define API_DESC(id, wire, summary) [API_M_##id] = {wire, summary, id##_params, id##_results},
    API_METHODS(API_DESC)
#undef API_DESC
};

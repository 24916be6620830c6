/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The podwired control API, declared once for the daemon and every client
 * (podwirectl, the CNI plugin, the Docker driver).
 *
 * Transport: JSON-RPC 2.0 over a unix stream socket, one JSON object per
 * line in each direction. A request is
 *   {"jsonrpc":"2.0","id":N,"method":"port.create","params":{...}}
 * and its answer carries the same id and either "result" or "error"
 * {"code":C,"message":"...","data":{"field":"mac"}}.
 */
#ifndef PODWIRE_API_H
#define PODWIRE_API_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#define PODWIRE_VERSION "0.1.0"
/* The API's own version. A client refuses a daemon of a newer major
 * version (fields it would misread); minor versions only add. */
#define API_VERSION_MAJOR	  1
#define API_VERSION_MINOR	  8
#define PODWIRE_DEFAULT_SOCKET	  "/run/podwire/podwired.sock"
#define PODWIRE_DEFAULT_STATE_DIR "/var/lib/podwire"

/* Longest request or response line, newline included. */
#define API_MAX_LINE (1 << 20)

/*
 * The bounds of the parameters, named once. The method table (api.c) is
 * built from them and api_check_params enforces it; the daemon's model,
 * the CNI config and the state file are checked against the table
 * (api_param_find), so a bound is changed here and nowhere else.
 */
/* Strings: the longest value, in bytes without the NUL. */
#define API_NAME_MAX	     63	 /* a network, port or physnet name */
#define API_SOCKET_PATH_MAX  107 /* sun_path holds 108 bytes; one is the NUL */
#define API_SECRET_MAX	     24
#define API_IFNAME_MAX	     15 /* IFNAMSIZ less the NUL */
#define API_PCI_ADDR_MAX     12 /* 0000:01:10.2 */
#define API_ALLOWED_MACS_MAX 8
/* "m1,m2,...": 17 characters a MAC and a comma between two. */
#define API_ALLOWED_MACS_LEN (API_ALLOWED_MACS_MAX * 18 - 1)
#define API_CAPTURE_PORTS    16 /* ports in one capture */
/* Integers. */
#define API_MTU_MIN		 68
#define API_MTU_MAX		 9000
#define API_MTU_DEFAULT		 1500
#define API_VLAN_MAX		 4094
#define API_PORT_MAC_LIMIT	 64	  /* default learned MACs per port */
#define API_PORT_MAC_LIMIT_MAX	 65536	  /* and an uplink's default */
#define API_NET_MAC_LIMIT	 65536	  /* default learned MACs per network */
#define API_NET_MAC_LIMIT_MAX	 16777216 /* 2^24 */
#define API_FLOOD_LIMIT		 10000	  /* default flooded frames/s per port */
#define API_FLOOD_LIMIT_MAX	 10000000
#define API_TX_RETRIES		 8 /* default, as OVS's tx-retries */
#define API_TX_RETRIES_MAX	 64
#define API_QUEUES_MAX		 16 /* queue pairs of a port (vhost-user's VIRTIO_NET_F_MQ) */
#define API_RXQ_PINS_LEN	 (API_QUEUES_MAX * 8) /* "15:1023," each */
#define API_SNAPLEN_MIN		 14		      /* an Ethernet header */
#define API_SNAPLEN_MAX		 262144 /* tcpdump's default; frames are at most 9022 bytes */
#define API_CAPTURE_COUNT_MAX	 1000000000
#define API_CAPTURE_DURATION_MAX 31536000 /* a year, in seconds */
#define API_TRACE_MAX		 1000	  /* frames one trace add records */
/* Rate limits (policer/): frames/s or bits/s, and a burst of frames or
 * bytes. The burst's bound keeps the policer's integer bucket in range. */
#define API_RATE_PPS_MAX   1000000000L	  /* 1 Gframe/s */
#define API_RATE_BPS_MAX   1000000000000L /* 1 Tbit/s */
#define API_RATE_BURST_MAX 100000000L

/* Stable error codes. The JSON-RPC ones keep their standard meaning. */
enum api_error {
	API_ERR_PARSE = -32700,		  /* not JSON */
	API_ERR_INVALID_REQUEST = -32600, /* not a JSON-RPC request */
	API_ERR_NO_METHOD = -32601,	  /* unknown method */
	API_ERR_INVALID_PARAMS = -32602,  /* a field is missing, unknown or bad */
	API_ERR_INTERNAL = -32603,
	API_ERR_NOT_FOUND = 1001, /* unknown network or port */
	API_ERR_EXISTS = 1002,	  /* the name is taken */
	API_ERR_IN_USE = 1003,	  /* network still has ports, socket in use */
	API_ERR_PATH = 1004,	  /* socket directory missing or not writable */
	API_ERR_RESOURCE = 1005,  /* DPDK or a limit refused the request */
	API_ERR_NOT_READY = 1006, /* the daemon is starting or stopping */
	API_ERR_VERSION = 1007,	  /* client side: the daemon speaks a newer API */
};

/* Every method: X(enum suffix, wire name, one-line summary). */
#define API_METHODS(X)                                                                             \
	X(SYSTEM_INFO, "system.info", "daemon version, cores, workers, counts")                    \
	X(NETWORK_CREATE, "network.create", "create an L2 network")                                \
	X(NETWORK_DELETE, "network.delete", "delete a network with no ports")                      \
	X(NETWORK_LIST, "network.list", "list networks")                                           \
	X(PORT_CREATE, "port.create", "create a pod port on a network")                            \
	X(PORT_DELETE, "port.delete", "delete a port and its socket")                              \
	X(PORT_GET, "port.get", "one port with link state and counters")                           \
	X(PORT_LIST, "port.list", "list ports")                                                    \
	X(STATS_GET, "stats.get", "port and worker counters")                                      \
	X(STATS_CLEAR, "stats.clear", "reset counters as seen by stats.get")                       \
	X(MAC_LIST, "mac.list", "learned MAC addresses of a network")                              \
	X(VF_LIST, "vf.list", "SR-IOV VF pools per physical network")                              \
	X(VF_ALLOC, "vf.alloc", "take a free VF of a physnet and bind it to vfio-pci")             \
	X(VF_RELEASE, "vf.release", "give a VF back and restore its original driver")              \
	X(CDI_LIST, "cdi.list", "the CDI devices podwired offers and their spec documents")        \
	X(CAPTURE_START, "capture.start",                                                          \
	  "copy ports' frames into pcapng, streamed on this connection after the answer")          \
	X(CAPTURE_LIST, "capture.list", "running captures and their counts")                       \
	X(TRACE_ADD, "trace.add", "record the path of the next N frames")                          \
	X(TRACE_SHOW, "trace.show", "the paths recorded")                                          \
	X(TRACE_CLEAR, "trace.clear", "stop tracing and forget the paths recorded")                \
	X(QUEUE_LIST, "queue.list", "every rx queue: its worker, state and load")                  \
	X(QUEUE_PIN, "queue.pin", "poll an rx queue on a given worker, kept there")                \
	X(QUEUE_UNPIN, "queue.unpin", "give a pinned rx queue back to the balancer")               \
	X(QUEUE_BALANCE, "queue.balance", "the rx queue balancer: settings, last check, run now")  \
	X(POLICER_SET, "policer.set", "rate-limit a port's traffic: frames/s or bits/s, a burst")  \
	X(POLICER_DEL, "policer.del", "remove a port's rate limit")                                \
	X(MIRROR_CREATE, "mirror.create", "copy ports' frames to a destination port")              \
	X(MIRROR_DEL, "mirror.del", "stop and delete a mirror")                                    \
	X(MIRROR_LIST, "mirror.list", "mirrors and their copies and drops")                        \
	X(ACL_SET, "acl.set", "create or replace (atomically) an access list")                     \
	X(ACL_DEL, "acl.del", "delete an access list that is attached nowhere")                    \
	X(ACL_LIST, "acl.list", "access lists and where they are attached")                        \
	X(ACL_SHOW, "acl.show", "an access list's rules with their hit counters")                  \
	X(ACL_ATTACH, "acl.attach", "apply a list to a port's or a network's ingress or egress")   \
	X(ACL_DETACH, "acl.detach", "stop applying a list there")                                  \
	X(ACL_TIMEOUTS, "acl.timeouts", "permit+reflect session idle timeouts: set some, see all") \
	X(ACL_SESSIONS, "acl.sessions", "permit+reflect sessions per worker: live, made, ended")

enum api_method {
#define API_ENUM(id, wire, summary) API_M_##id,
	API_METHODS(API_ENUM)
#undef API_ENUM
	    API_METHOD_COUNT
};

/* Field names, shared by requests, results and the state file. */
#define API_F_NAME	    "name"
#define API_F_NETWORK	    "network"
#define API_F_MODE	    "mode" /* network: bridge|xconnect; port: server|client */
#define API_F_VLAN	    "vlan"
#define API_F_TYPE	    "type"
#define API_F_SOCKET	    "socket"
#define API_F_MAC	    "mac"
#define API_F_MTU	    "mtu"
#define API_F_SECRET	    "secret"
#define API_F_PORT	    "port"
#define API_F_LINK	    "link"
#define API_F_WORKER	    "worker"
#define API_F_IFACE	    "iface"   /* af_xdp, af_packet: the kernel interface */
#define API_F_PCI	    "pci"     /* pci port, vf.release: a PCI address 0000:01:10.2 */
#define API_F_PHYSNET	    "physnet" /* vf.*: a physical network name */
#define API_F_OWNER	    "owner"   /* vf.*: who holds the VF (CNI: containerID/ifname) */
#define API_F_SPOOFCHK	    "spoof_check"
#define API_F_PORT_SECURITY "port_security" /* bridge: only the port's MACs as source */
#define API_F_ALLOWED_MACS  "allowed_macs"  /* extra source MACs, comma separated */
#define API_F_MAC_LIMIT	    "mac_limit"	    /* MACs a port / network may have learned */
#define API_F_FLOOD_LIMIT   "flood_limit"   /* flooded frames per second from a port */
#define API_F_TX_RETRIES    "tx_retries"    /* tries again of a full ring */
#define API_F_QUEUES	    "queues"	    /* queue pairs a port may use */
#define API_F_RXQ_PINS	    "rxq_pins"	    /* "Q:CORE,...": rx queues pinned on workers */
#define API_F_TRUST	    "trust"
#define API_F_IO	    "io" /* veth: API_IO_PACKET (default) or API_IO_XDP */
#define API_IO_PACKET	    "packet"
#define API_IO_XDP	    "xdp"
#define API_F_RINGS	    "rings" /* vhost-user: API_RINGS_PODWIRE (default) or API_RINGS_LIBRTE */
#define API_RINGS_PODWIRE   "podwire"
#define API_RINGS_LIBRTE    "librte"
#define API_F_OFFLOADS	    "offloads" /* port: checksum/segmentation offloads offered */
/* Capture and trace (API 1.4). */
#define API_F_PORTS	"ports"	    /* capture.start: port names */
#define API_F_DIRECTION "direction" /* rx, tx or both */
#define API_F_COUNT	"count"	    /* frames: capture stops, trace records */
#define API_F_DURATION	"duration"  /* seconds a capture runs, 0: until stopped */
#define API_F_SNAPLEN	"snaplen"   /* bytes kept of each frame */
#define API_F_FILTER	"filter"    /* a libpcap (tcpdump) expression */
/* Rate limits (API 1.8): port.create's flat fields, policer.set's. */
#define API_F_RATE_IN_PPS    "rate_in_pps"    /* frames/s the pod may send */
#define API_F_RATE_IN_BPS    "rate_in_bps"    /* or bits/s */
#define API_F_RATE_IN_BURST  "rate_in_burst"  /* frames (pps) or bytes (bps) */
#define API_F_RATE_OUT_PPS   "rate_out_pps"   /* frames/s the pod may receive */
#define API_F_RATE_OUT_BPS   "rate_out_bps"   /* or bits/s */
#define API_F_RATE_OUT_BURST "rate_out_burst" /* frames (pps) or bytes (bps) */
#define API_F_PPS	     "pps"
#define API_F_BPS	     "bps"
#define API_F_BURST	     "burst"
#define API_DIR_INGRESS	     "ingress" /* what the port's pod sends */
#define API_DIR_EGRESS	     "egress"  /* what podwired sends to the port */

/* Access lists (API 1.8). */
#define API_F_DEFAULT	    "default" /* acl.set: the action when no rule matches */
#define API_F_RULES	    "rules"   /* acl.set: the rules, in order; results: their count */
#define API_F_ACTION	    "action"  /* a rule's: permit, deny, permit+reflect */
#define API_F_SRC_MAC	    "src_mac"
#define API_F_DST_MAC	    "dst_mac"
#define API_F_ETHERTYPE	    "ethertype"
#define API_F_SRC	    "src" /* a rule's prefix */
#define API_F_DST	    "dst"
#define API_F_PROTO	    "proto"
#define API_F_SPORT	    "sport"
#define API_F_DPORT	    "dport"
#define API_F_TCP_FLAGS	    "tcp_flags"
#define API_R_LISTS	    "lists"
#define API_R_ATTACHMENTS   "attachments"
#define API_R_INDEX	    "index"
#define API_R_HITS	    "hits"
#define API_R_DEFAULT_HITS  "default_hits"
#define API_R_SESSION_HITS  "session_hits"
#define API_R_REPLACED_HITS "replaced_hits"
#define API_R_REPLACES	    "replaces"
#define API_R_REPLACED	    "replaced"
#define API_R_ACL	    "acl" /* trace: which list and rule decided */
#define API_ACL_RULES_MAX   16384
/* acl.show gives at most this many rules an answer (an answer is a line
 * of at most API_MAX_LINE); "first" pages through longer lists. */
#define API_ACL_SHOW_MAX  4096
#define API_F_FIRST	  "first"
#define API_R_RULES_TOTAL "rules_total"
/* acl.timeouts (seconds) and acl.sessions */
#define API_F_TCP	    "tcp"
#define API_F_UDP	    "udp"
#define API_F_OTHER	    "other"
#define API_ACL_TIMEOUT_MAX 604800
#define API_R_LIVE	    "live"
#define API_R_CREATED	    "created"
#define API_R_EXPIRED	    "expired"
#define API_R_FULL	    "full"
#define API_R_MAX	    "max"

/* Result fields: what handlers return and clients read, by these names
 * only (besides the API_F_ names above). Each method's results are
 * declared in api.c next to its parameters. */
#define API_R_VERSION	      "version"
#define API_R_API_VERSION     "api_version" /* "MAJOR.MINOR" */
#define API_R_PID	      "pid"
#define API_R_STATE_DIR	      "state_dir"
#define API_R_MAIN_CORE	      "main_core"
#define API_R_UPTIME	      "uptime_sec"
#define API_R_TSC_HZ	      "tsc_hz"
#define API_R_RUNTIME_DIR     "dpdk_runtime_dir"
#define API_R_NETWORKS	      "networks"
#define API_R_PORTS	      "ports"
#define API_R_MAC_ENTRIES     "mac_entries"
#define API_R_MAC_AGING	      "mac_aging_sec"
#define API_R_READY	      "ready"
#define API_R_WORKERS	      "workers"
#define API_R_KINDS	      "kinds"
#define API_R_MEMORY	      "memory" /* object: what podwired holds now */
#define API_R_HEAP_BYTES      "heap_bytes"
#define API_R_DPDK_HEAP_BYTES "dpdk_heap_bytes"
#define API_R_DPDK_ALLOCS     "dpdk_allocs"
#define API_R_FDS	      "fds"
#define API_R_SUMMARY	      "summary"
#define API_R_FIELDS	      "fields"
#define API_R_LCORE	      "lcore"
#define API_R_SLEEPS	      "sleeps"	 /* idle naps of a worker */
#define API_R_SLEEP_US	      "sleep_us" /* and the microseconds asked for */
/* Rx queues (API 1.6). */
#define API_F_QUEUE	      "queue"
#define API_F_ENABLED	      "enabled"
#define API_F_INTERVAL	      "interval"
#define API_F_THRESHOLD	      "threshold"
#define API_F_IMPROVEMENT     "improvement"
#define API_F_RUN	      "run"
#define API_R_QUEUES	      "queues"
#define API_R_RX_QUEUES	      "rx_queues"
#define API_R_PINNED	      "pinned"
#define API_R_FIXED	      "fixed"
#define API_R_BUSY_PCT	      "busy_pct"
#define API_R_WINDOW	      "window_sec"
#define API_R_RX_TOTAL	      "rx_packets_total"
#define API_R_TX_TOTAL	      "tx_packets_total"
#define API_R_BUSY_TOTAL      "busy_cycles_total"
#define API_R_CHECKS	      "checks"
#define API_R_MOVES	      "moves"
#define API_R_LAST_MOVED      "last_moved"
#define API_R_LAST	      "last"
#define API_R_MOVED	      "moved"
#define API_R_BUSY_CYCLES     "busy_cycles"
#define API_R_IDLE_CYCLES     "idle_cycles"
#define API_R_STATS	      "stats"
#define API_R_RX_PACKETS      "rx_packets"
#define API_R_RX_BYTES	      "rx_bytes"
#define API_R_TX_PACKETS      "tx_packets"
#define API_R_TX_BYTES	      "tx_bytes"
#define API_R_DROPS	      "drops" /* object: drop reason -> count */
#define API_R_UPLINK	      "uplink"
#define API_R_DEVICE	      "device"
#define API_R_DRIVER	      "driver"
#define API_R_PORTS_ON_DEVICE "ports_on_device"
#define API_R_UNKNOWN_VLAN    "unknown_vlan"
#define API_R_STASH_FULL      "stash_full"
#define API_R_TX_QUEUES	      "tx_queues"
#define API_R_TX_LOCKED	      "tx_lock"
#define API_R_RX_SPREAD	      "rx_spread"
#define API_R_CLEARED	      "cleared"
#define API_R_ENTRIES	      "entries"
#define API_R_AGE	      "age_sec"
#define API_R_PHYSNETS	      "physnets"
#define API_R_TOTAL	      "total"
#define API_R_FREE	      "free"
#define API_R_USED	      "used"
#define API_R_UNAVAILABLE     "unavailable"
#define API_R_PFS	      "pfs"
#define API_R_VFS	      "vfs"
#define API_R_PF	      "pf"
#define API_R_PF_PCI	      "pf_pci"
#define API_R_FIRST_VF	      "first_vf"
#define API_R_LAST_VF	      "last_vf"
#define API_R_VF_INDEX	      "vf_index"
#define API_R_IOMMU_GROUP     "iommu_group"
#define API_R_NETDEV	      "netdev"
#define API_R_STATE	      "state"
#define API_R_REASON	      "reason"
#define API_R_ORIGINAL_DRIVER "original_driver"
#define API_R_VFIO_DEVICE     "vfio_device"
#define API_R_VF_CONFIG	      "vf_config"
#define API_R_RELEASED	      "released"
#define API_R_MEMIF	      "memif"
#define API_R_PEER	      "peer"
#define API_R_QUEUE_PAIRS     "queue_pairs"
#define API_R_RING_SIZE	      "ring_size"
#define API_R_REGIONS	      "regions"
#define API_R_MAPPED_BYTES    "mapped_bytes"
#define API_R_CONNECTS	      "connects"
#define API_R_DISCONNECTS     "disconnects"
#define API_R_LAST_DISCONNECT "last_disconnect"
#define API_R_RINGS_ACTIVE    "rings_active" /* vhost-user: whose code moves the rings now */
#define API_R_TOO_LONG	      "too_long"   /* vhost-user: frames larger than the guest's buffers */
#define API_R_NEGOTIATED      "negotiated" /* vhost-user: offload features the guest took */
#define API_R_REFUSED	      "refused"	   /* memif: second peers turned away */
#define API_R_FLAPS	      "flaps"	   /* memif: short connections in a row */
#define API_R_BACKOFF_MS      "backoff_ms" /* memif: wait before the next connection */
#define API_R_VHOST	      "vhost_user"
#define API_R_REFUSED_CONNS   "refused_connections"
#define API_R_REFUSED_MSGS    "refused_messages"
#define API_R_FAULTS	      "faults"
#define API_R_LEARN_LIMIT     "learn_limit"
#define API_R_MACS_LEARNED    "macs_learned"
#define API_R_DIR	      "dir"	/* cdi.list: the CDI directory, "" when none */
#define API_R_DEVICES	      "devices" /* cdi.list: one per CDI device */
#define API_R_KIND	      "kind"	/* a CDI kind: podwire.io/port */
#define API_R_FILE	      "file"	/* a CDI spec file's name */
#define API_R_ENV	      "env"	/* a CDI device's environment */
#define API_R_SPECS	      "specs"	/* cdi.list: the documents */
#define API_R_SPEC	      "spec"
#define API_R_SKIPPED	      "skipped" /* cdi.list: what is no device, and why */
#define API_R_OBJECT	      "object"
/* veth ports (a kernel container's interface) */
#define API_R_VETH	    "veth"
#define API_R_IFINDEX	    "ifindex"
#define API_R_KERNEL_DROPS  "kernel_drops"
#define API_R_ID	    "id"
#define API_R_FORMAT	    "format"
#define API_R_INTERFACE	    "interface"
#define API_R_CAPTURES	    "captures"
#define API_R_MATCHED	    "matched"
#define API_R_WRITTEN	    "written"
#define API_R_WRITTEN_BYTES "written_bytes"
#define API_R_SECONDS	    "seconds"
#define API_R_TRACES	    "traces"
#define API_R_SEQ	    "seq"
#define API_R_TIME	    "time_sec"
#define API_R_LEN	    "len"
#define API_R_SRC	    "src"
#define API_R_DST	    "dst"
#define API_R_ETHERTYPE	    "ethertype"
#define API_R_TAG	    "tag"
#define API_R_VLAN_ACTION   "vlan_action"
#define API_R_LOOKUP	    "lookup"
#define API_R_OUTPUTS	    "outputs"
#define API_R_DESTINATIONS  "destinations"
#define API_R_RESULT	    "result"
#define API_R_DROP	    "drop"
#define API_R_REMAINING	    "remaining"

/* Port mirroring (API 1.8): mirror.create takes name, ports,
 * direction (API_DIR_INGRESS, API_DIR_EGRESS or API_DIR_BOTH) and to. */
#define API_F_TO      "to"  /* the port a mirror's copies go to */
#define API_F_ACL     "acl" /* mirror.create: the access list selecting what is copied */
#define API_R_MIRRORS "mirrors"
#define API_R_COPIES  "copies"	/* copies the destination took */
#define API_R_DROPPED "dropped" /* frames not copied: no mbuf, destination full */

/* Values of the enumerated fields. */
#define API_DIR_RX	   "rx"
#define API_DIR_TX	   "tx"
#define API_DIR_BOTH	   "both"
#define API_CAPTURE_FORMAT "pcapng"
#define API_NET_BRIDGE	   "bridge"
#define API_NET_XCONNECT   "xconnect"
#define API_PORT_VHOST	   "vhost-user"
#define API_PORT_MEMIF	   "memif"
#define API_PORT_NULL	   "null"
#define API_PORT_AF_XDP	   "af_xdp"    /* uplink: kernel NIC through AF_XDP */
#define API_PORT_AF_PACKET "af_packet" /* uplink: kernel NIC through AF_PACKET */
#define API_PORT_PCI	   "pci"       /* uplink: a VF or NIC bound to vfio-pci */
#define API_PORT_VETH	   "veth"      /* a veth pair: the peer end goes into a container */
#define API_ROLE_SERVER	   "server"    /* podwired creates the socket */
#define API_ROLE_CLIENT	   "client"    /* podwired connects to the pod's socket */

enum api_type {
	API_T_STRING,
	API_T_INT,
	API_T_BOOL,
	API_T_NUMBER, /* results: counters, which JSON carries as doubles */
	API_T_OBJECT,
	API_T_ARRAY,
};

/* One parameter or result field of a method. */
struct api_field {
	const char *name;
	enum api_type type;
	bool required;
	const char *help; /* shown in errors: what a good value looks like */
	/* Results: an object's members, or the members of an array's object
	 * items; NULL for an array of strings or an object of counters. */
	const struct api_field *members;
	/* Parameters: what api_check_params enforces. An integer is min-max,
	 * counted in unit ("bytes", "frames/s"); a string is at most max
	 * bytes long (min is 0), unit "bytes". unit NULL: no bound. */
	long min, max;
	const char *unit;
};

struct api_method_desc {
	const char *name;
	const char *summary;
	const struct api_field *params;	 /* terminated by a NULL name */
	const struct api_field *results; /* the result object's members */
};

/* The method table, indexed by enum api_method. */
extern const struct api_method_desc api_methods[API_METHOD_COUNT];

/* A method's wire name, for clients: API_NAME(PORT_LIST) is "port.list". */
#define API_NAME(id) (api_methods[API_M_##id].name)

/* Returns the method with this wire name, or -1. */
int api_method_lookup(const char *name);

/*
 * Checks params (an object, or NULL for none) against the method's table:
 * unknown fields, missing required fields, wrong types and values out of
 * their field's range (an integer's value, a string's length). On failure
 * returns API_ERR_INVALID_PARAMS and writes a message naming the field and
 * the fix, and the field name, into the buffers (field may be NULL).
 */
int api_check_params(enum api_method m, const cJSON *params, char *msg, size_t msglen,
		     const char **field);

/* The declared parameter name of method m, or NULL. For readers of the
 * same values under other names (the CNI config's "macLimit" is
 * port.create's "mac_limit"): they check against its range. */
const struct api_field *api_param_find(enum api_method m, const char *name);

/*
 * Checks v against f's range (an integer field). 0, or -ERANGE with msg
 * "<what> is V, it must be MIN-MAX (UNIT); <help>", what naming the
 * field as the reader knows it (e.g. "\"macLimit\"").
 */
int api_field_check_int(const struct api_field *f, const char *what, long v, char *msg,
			size_t msglen);

/*
 * Checks that every member of a method's result (and of its nested
 * objects) is declared, with its declared type (null is allowed). 0, or
 * -EPROTO with msg naming the path of the first undeclared member. The
 * daemon runs it on every answer; tests run it too.
 */
int api_check_result(enum api_method m, const cJSON *result, char *msg, size_t msglen);

/* "MAJOR.MINOR" into its parts; -1 when it is not that shape. */
int api_version_parse(const char *text, int *major, int *minor);

/* Builders used by both sides. The caller owns what they return. */
cJSON *api_request_new(int id, const char *method, cJSON *params);
cJSON *api_result_new(const cJSON *id, cJSON *result);
cJSON *api_error_new(const cJSON *id, int code, const char *msg, const char *field);

/* Accessors that tolerate a missing field. */
const char *api_get_str(const cJSON *obj, const char *field, const char *dflt);
long api_get_int(const cJSON *obj, const char *field, long dflt);
/* Whether a JSON number is an integer a long holds (a double beyond
 * LONG_MAX, NaN or infinity is not: converting one is undefined). */
bool api_number_is_long(double v);
/* v as a long, saturated at LONG_MIN/LONG_MAX (NaN: 0): never undefined. */
long api_number_to_long(double v);
bool api_get_bool(const cJSON *obj, const char *field, bool dflt);

#endif

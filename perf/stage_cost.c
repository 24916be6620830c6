/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * podwire-stagecost: what a stage dispatch scheme costs per frame (issue 22).
 *
 * podwired's datapath becomes a chain of stages over one burst type (input
 * checks -> the network's decision -> output). The question is how the
 * chain is driven; this program measures four ways on one lcore, with the
 * same stage bodies and the same 32 pre-allocated mbufs fed every burst (no
 * rx or tx driver: dispatch is measured, not I/O):
 *
 *   direct      K work stages called one after another on the whole burst,
 *               then the split and the output: the baseline;
 *   table       the same functions from an array of pointers taking (ctx,
 *               burst), the burst carrying the mbufs and per-frame metadata
 *               arrays (dst port, drop reason); the split marks each frame,
 *               the output stage groups them;
 *   table-mbuf  the same table with the metadata in an mbuf dynfield, where
 *               a graph must keep it: it separates the cost of that
 *               placement from the graph's own;
 *   graph       DPDK's librte_graph: one node per stage, rte_graph_walk,
 *               frames moved with rte_node_next_stream_move and, at the
 *               split, rte_node_enqueue_x1; per-frame metadata in the mbuf
 *               dynfield, since a graph moves only object pointers.
 *
 * Each work stage reads a header byte and folds it into the frame's
 * metadata; the split sends each frame to unicast (grouped per destination
 * port), flood or drop (counted per reason); the output sums the metadata
 * into a counter so that nothing can be optimised away. All schemes must
 * produce identical counters before anything is timed.
 *
 * The schemes are interleaved in short slices within each run (every
 * scheme, then the next K, ... the starting scheme rotating), so that on a
 * VM whose vCPU changes speed they see the same conditions. A run's figure
 * is the median over its slices (a preempted slice is an outlier, not an
 * average's share), its difference to direct the median of the differences
 * within each round; the table gives median, min and max over runs.
 *
 * Measure with hugepages (EAL -m 64 --in-memory): with --no-huge, 4 KiB
 * pages make TLB misses, not dispatch, the larger cost on a VM.
 *
 *   podwire-stagecost [EAL options] -- [--runs N] [--seconds S]
 *                     [--warmup S] [--slice BURSTS] [--per-run]
 */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_graph.h>
#include <rte_graph_worker.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>

#define SC_BURST      32
#define SC_PORTS      4 /* destination ports of the unicast output */
#define SC_MAX_STAGES 5
#define SC_NB_K	      3
#define SC_MAX_RUNS   1000
#define SC_MAX_ROUNDS 100000 /* per run */

static const unsigned int sc_k[SC_NB_K] = {1, 3, 5};

enum sc_scheme { SC_DIRECT, SC_TABLE, SC_TABLE_MBUF, SC_GRAPH, SC_NB_SCHEMES };
static const char *const sc_scheme_name[SC_NB_SCHEMES] = {"direct", "table", "table-mbuf", "graph"};

/* A frame's destination: a port (0 .. SC_PORTS - 1), flood or drop. */
enum { SC_OUT_FLOOD = SC_PORTS, SC_OUT_DROP };
enum sc_drop { SC_DROP_HAIRPIN, SC_DROP_VLAN, SC_NB_DROPS };

/* The header byte each work stage reads: destination and source MAC, the
 * EtherType, the first byte after it. */
static const unsigned int sc_hdr_off[SC_MAX_STAGES] = {0, 6, 12, 13, 14};

struct sc_counters {
	uint64_t tx[SC_PORTS]; /* frames "sent" per destination port */
	uint64_t tx_calls;     /* per-destination flushes (one per port per burst) */
	uint64_t flood;
	uint64_t drop[SC_NB_DROPS];
	uint64_t sum; /* of every frame's metadata: keeps the work stages live */
};

/* Per-destination batches, flushed once per burst as podwired's workers do. */
struct sc_txq {
	uint16_t n;
	struct rte_mbuf *pkts[SC_BURST];
};

struct sc_ctx {
	struct sc_counters cnt;
	struct sc_txq txq[SC_PORTS + 1]; /* the last one is flood's */
} __rte_cache_aligned;

/* The stage table's burst: mbufs plus per-frame metadata arrays. */
struct sc_burst {
	uint16_t n;
	uint16_t in_port;
	struct rte_mbuf *pkts[SC_BURST];
	uint32_t acc[SC_BURST];	  /* what the work stages computed */
	uint8_t out[SC_BURST];	  /* port, SC_OUT_FLOOD or SC_OUT_DROP */
	uint8_t reason[SC_BURST]; /* enum sc_drop, when out is SC_OUT_DROP */
} __rte_cache_aligned;

/* The per-frame metadata of table-mbuf and the graph, in an mbuf dynfield. */
struct sc_md {
	uint32_t acc;
	uint8_t out;
	uint8_t reason;
};

static int sc_md_off = -1;
static struct rte_mbuf *sc_mbufs[SC_BURST];
static const uint16_t sc_in_port; /* every burst arrives on port 0 */

static inline struct sc_md *sc_md(struct rte_mbuf *m)
{
	return RTE_MBUF_DYNFIELD(m, sc_md_off, struct sc_md *);
}

static inline uint32_t sc_fold(unsigned int stage, uint32_t acc, const struct rte_mbuf *m)
{
	uint8_t byte = rte_pktmbuf_mtod(m, const uint8_t *)[sc_hdr_off[stage]];

	return stage == 0 ? byte : acc * 31 + byte;
}

/* The bridge's decision, shared by every scheme: broadcast floods, a tagged
 * frame is dropped (untagged network), a frame for the port it came from
 * is dropped, the rest go to the port the destination MAC names. */
static inline uint8_t sc_decide(const struct rte_mbuf *m, uint16_t in_port, uint8_t *reason)
{
	const uint8_t *h = rte_pktmbuf_mtod(m, const uint8_t *);
	uint8_t port;

	if (h[0] & 1)
		return SC_OUT_FLOOD;
	if (h[12] == 0x81 && h[13] == 0x00) {
		*reason = SC_DROP_VLAN;
		return SC_OUT_DROP;
	}
	port = h[5] % SC_PORTS;
	if (port == in_port) {
		*reason = SC_DROP_HAIRPIN;
		return SC_OUT_DROP;
	}
	return port;
}

static inline void sc_txq_add(struct sc_txq *q, struct rte_mbuf *m)
{
	q->pkts[q->n++] = m;
}

/* Stands for tx_burst: the frames are counted, not freed (they are fed
 * again next burst). */
static inline void sc_txq_flush(struct sc_ctx *c, unsigned int q)
{
	uint16_t n = c->txq[q].n;

	if (n == 0)
		return;
	if (q == SC_PORTS)
		c->cnt.flood += n;
	else
		c->cnt.tx[q] += n;
	c->cnt.tx_calls++;
	c->txq[q].n = 0;
}

/* ---- (a) and (b): stages over struct sc_burst ---- */

typedef void (*sc_stage_fn)(struct sc_ctx *c, struct sc_burst *b);

static inline void sc_work(unsigned int stage, struct sc_burst *b)
{
	for (uint16_t i = 0; i < b->n; i++)
		b->acc[i] = sc_fold(stage, b->acc[i], b->pkts[i]);
}

#define SC_WORK_STAGE(i)                                                                           \
	static void sc_stage_work##i(struct sc_ctx *c __rte_unused, struct sc_burst *b)            \
	{                                                                                          \
		sc_work(i, b);                                                                     \
	}
SC_WORK_STAGE(0)
SC_WORK_STAGE(1)
SC_WORK_STAGE(2)
SC_WORK_STAGE(3)
SC_WORK_STAGE(4)

static const sc_stage_fn sc_work_fn[SC_MAX_STAGES] = {
    sc_stage_work0, sc_stage_work1, sc_stage_work2, sc_stage_work3, sc_stage_work4};

static void sc_stage_split(struct sc_ctx *c __rte_unused, struct sc_burst *b)
{
	for (uint16_t i = 0; i < b->n; i++)
		b->out[i] = sc_decide(b->pkts[i], b->in_port, &b->reason[i]);
}

static void sc_stage_output(struct sc_ctx *c, struct sc_burst *b)
{
	for (uint16_t i = 0; i < b->n; i++) {
		uint8_t o = b->out[i];

		c->cnt.sum += b->acc[i];
		if (likely(o <= SC_OUT_FLOOD))
			sc_txq_add(&c->txq[o], b->pkts[i]);
		else
			c->cnt.drop[b->reason[i]]++;
	}
	for (unsigned int q = 0; q <= SC_PORTS; q++)
		sc_txq_flush(c, q);
}

/* What an rx burst does to the burst before the first stage. */
static inline void sc_fill(struct sc_burst *b)
{
	b->n = SC_BURST;
	b->in_port = sc_in_port;
	memcpy(b->pkts, sc_mbufs, sizeof(sc_mbufs));
}

/* One burst through K stages, the split and the output. Not inlined into
 * the timing loop, like the other schemes' per-burst entry points. */
static __rte_noinline void sc_direct_run(struct sc_ctx *c, struct sc_burst *b, unsigned int k)
{
	sc_fill(b);
	sc_stage_work0(c, b);
	if (k > 1)
		sc_stage_work1(c, b);
	if (k > 2)
		sc_stage_work2(c, b);
	if (k > 3)
		sc_stage_work3(c, b);
	if (k > 4)
		sc_stage_work4(c, b);
	sc_stage_split(c, b);
	sc_stage_output(c, b);
}

struct sc_table {
	unsigned int n;
	sc_stage_fn fn[SC_MAX_STAGES + 2];
};

static __rte_noinline void sc_table_run(struct sc_ctx *c, struct sc_burst *b,
					const struct sc_table *t)
{
	sc_fill(b);
	for (unsigned int s = 0; s < t->n; s++)
		t->fn[s](c, b);
}

static void sc_table_build(struct sc_table *t, unsigned int k, const sc_stage_fn *work,
			   sc_stage_fn split, sc_stage_fn output)
{
	t->n = 0;
	for (unsigned int i = 0; i < k; i++)
		t->fn[t->n++] = work[i];
	t->fn[t->n++] = split;
	t->fn[t->n++] = output;
}

/* ---- (b') the same table, the metadata in the mbuf ----
 *
 * Where librte_graph has to keep it (a graph moves object pointers only):
 * the difference to (b) is the cost of that placement, the difference
 * from here to (c) the graph's own. */

static inline void sc_mwork(unsigned int stage, struct rte_mbuf **pkts, uint16_t n)
{
	for (uint16_t i = 0; i < n; i++) {
		struct sc_md *md = sc_md(pkts[i]);

		md->acc = sc_fold(stage, md->acc, pkts[i]);
	}
}

#define SC_MWORK_STAGE(i)                                                                          \
	static void sc_mstage_work##i(struct sc_ctx *c __rte_unused, struct sc_burst *b)           \
	{                                                                                          \
		sc_mwork(i, b->pkts, b->n);                                                        \
	}
SC_MWORK_STAGE(0)
SC_MWORK_STAGE(1)
SC_MWORK_STAGE(2)
SC_MWORK_STAGE(3)
SC_MWORK_STAGE(4)

static const sc_stage_fn sc_mwork_fn[SC_MAX_STAGES] = {
    sc_mstage_work0, sc_mstage_work1, sc_mstage_work2, sc_mstage_work3, sc_mstage_work4};

static void sc_mstage_split(struct sc_ctx *c __rte_unused, struct sc_burst *b)
{
	for (uint16_t i = 0; i < b->n; i++) {
		struct sc_md *md = sc_md(b->pkts[i]);

		md->out = sc_decide(b->pkts[i], b->in_port, &md->reason);
	}
}

static void sc_mstage_output(struct sc_ctx *c, struct sc_burst *b)
{
	for (uint16_t i = 0; i < b->n; i++) {
		const struct sc_md *md = sc_md(b->pkts[i]);

		c->cnt.sum += md->acc;
		if (likely(md->out <= SC_OUT_FLOOD))
			sc_txq_add(&c->txq[md->out], b->pkts[i]);
		else
			c->cnt.drop[md->reason]++;
	}
	for (unsigned int q = 0; q <= SC_PORTS; q++)
		sc_txq_flush(c, q);
}

/* ---- (c) librte_graph ---- */

/* The graph's nodes count into this context (their node->ctx points here). */
static struct sc_ctx sc_graph_ctx;

static inline struct sc_ctx *sc_node_ctx(const struct rte_node *node)
{
	struct sc_ctx *c;

	memcpy(&c, node->ctx, sizeof(c));
	return c;
}

static int sc_node_init(const struct rte_graph *graph __rte_unused, struct rte_node *node)
{
	struct sc_ctx *c = &sc_graph_ctx;

	memcpy(node->ctx, &c, sizeof(c));
	return 0;
}

/* The source: the same mbufs every walk, as an rx node would write the
 * pointers of what it received into its own stream. */
static uint16_t sc_node_src(struct rte_graph *graph, struct rte_node *node, void **objs,
			    uint16_t nb __rte_unused)
{
	RTE_SET_USED(objs);
	memcpy(node->objs, sc_mbufs, sizeof(sc_mbufs));
	node->idx = SC_BURST;
	rte_node_next_stream_move(graph, node, 0);
	return SC_BURST;
}

static inline uint16_t sc_node_work(unsigned int stage, struct rte_graph *graph,
				    struct rte_node *node, void **objs, uint16_t nb)
{
	sc_mwork(stage, (struct rte_mbuf **)objs, nb);
	rte_node_next_stream_move(graph, node, 0);
	return nb;
}

#define SC_WORK_NODE_FN(i)                                                                         \
	static uint16_t sc_node_work##i(struct rte_graph *graph, struct rte_node *node,            \
					void **objs, uint16_t nb)                                  \
	{                                                                                          \
		return sc_node_work(i, graph, node, objs, nb);                                     \
	}
SC_WORK_NODE_FN(0)
SC_WORK_NODE_FN(1)
SC_WORK_NODE_FN(2)
SC_WORK_NODE_FN(3)
SC_WORK_NODE_FN(4)

enum sc_split_edge { SC_EDGE_UCAST, SC_EDGE_FLOOD, SC_EDGE_DROP };

static uint16_t sc_node_split(struct rte_graph *graph, struct rte_node *node, void **objs,
			      uint16_t nb)
{
	for (uint16_t i = 0; i < nb; i++) {
		struct rte_mbuf *m = objs[i];
		struct sc_md *md = sc_md(m);
		rte_edge_t edge;

		md->out = sc_decide(m, m->port, &md->reason);
		edge = md->out < SC_PORTS	 ? SC_EDGE_UCAST
		       : md->out == SC_OUT_FLOOD ? SC_EDGE_FLOOD
						 : SC_EDGE_DROP;
		rte_node_enqueue_x1(graph, node, edge, m);
	}
	return nb;
}

static uint16_t sc_node_ucast(struct rte_graph *graph __rte_unused, struct rte_node *node,
			      void **objs, uint16_t nb)
{
	struct sc_ctx *c = sc_node_ctx(node);

	for (uint16_t i = 0; i < nb; i++) {
		struct rte_mbuf *m = objs[i];
		const struct sc_md *md = sc_md(m);

		c->cnt.sum += md->acc;
		sc_txq_add(&c->txq[md->out], m);
	}
	for (unsigned int q = 0; q < SC_PORTS; q++)
		sc_txq_flush(c, q);
	return nb;
}

static uint16_t sc_node_flood(struct rte_graph *graph __rte_unused, struct rte_node *node,
			      void **objs, uint16_t nb)
{
	struct sc_ctx *c = sc_node_ctx(node);

	for (uint16_t i = 0; i < nb; i++) {
		struct rte_mbuf *m = objs[i];

		c->cnt.sum += sc_md(m)->acc;
		sc_txq_add(&c->txq[SC_PORTS], m);
	}
	sc_txq_flush(c, SC_PORTS);
	return nb;
}

static uint16_t sc_node_drop(struct rte_graph *graph __rte_unused, struct rte_node *node,
			     void **objs, uint16_t nb)
{
	struct sc_ctx *c = sc_node_ctx(node);

	for (uint16_t i = 0; i < nb; i++) {
		const struct sc_md *md = sc_md(objs[i]);

		c->cnt.sum += md->acc;
		c->cnt.drop[md->reason]++;
	}
	return nb;
}

/* One chain per K: sc_src_kK -> sc_kK_w0 -> ... -> sc_split; the split and
 * the outputs are shared (each graph gets its own instance). */
#define SC_NODE(var, fn, ...)                                                                      \
	static struct rte_node_register var = {                                                    \
	    .name = #var,                                                                          \
	    .process = fn,                                                                         \
	    .init = sc_node_init,                                                                  \
	    .nb_edges = RTE_DIM(((const char *[]){__VA_ARGS__})),                                  \
	    .next_nodes = {__VA_ARGS__},                                                           \
	};                                                                                         \
	RTE_NODE_REGISTER(var)
#define SC_SINK(var, fn)                                                                           \
	static struct rte_node_register var = {                                                    \
	    .name = #var,                                                                          \
	    .process = fn,                                                                         \
	    .init = sc_node_init,                                                                  \
	};                                                                                         \
	RTE_NODE_REGISTER(var)
#define SC_SOURCE(var, next)                                                                       \
	static struct rte_node_register var = {                                                    \
	    .name = #var,                                                                          \
	    .flags = RTE_NODE_SOURCE_F,                                                            \
	    .process = sc_node_src,                                                                \
	    .nb_edges = 1,                                                                         \
	    .next_nodes = {next},                                                                  \
	};                                                                                         \
	RTE_NODE_REGISTER(var)

SC_SINK(sc_ucast, sc_node_ucast);
SC_SINK(sc_flood, sc_node_flood);
SC_SINK(sc_drop, sc_node_drop);
SC_NODE(sc_split, sc_node_split, "sc_ucast", "sc_flood", "sc_drop");

SC_SOURCE(sc_src_k1, "sc_k1_w0");
SC_NODE(sc_k1_w0, sc_node_work0, "sc_split");

SC_SOURCE(sc_src_k3, "sc_k3_w0");
SC_NODE(sc_k3_w0, sc_node_work0, "sc_k3_w1");
SC_NODE(sc_k3_w1, sc_node_work1, "sc_k3_w2");
SC_NODE(sc_k3_w2, sc_node_work2, "sc_split");

SC_SOURCE(sc_src_k5, "sc_k5_w0");
SC_NODE(sc_k5_w0, sc_node_work0, "sc_k5_w1");
SC_NODE(sc_k5_w1, sc_node_work1, "sc_k5_w2");
SC_NODE(sc_k5_w2, sc_node_work2, "sc_k5_w3");
SC_NODE(sc_k5_w3, sc_node_work3, "sc_k5_w4");
SC_NODE(sc_k5_w4, sc_node_work4, "sc_split");

static struct rte_graph *sc_graph_create(unsigned int k)
{
	char src[32], chain[32], name[32];
	const char *patterns[] = {src, chain, "sc_split", "sc_ucast", "sc_flood", "sc_drop"};
	struct rte_graph_param prm = {
	    .socket_id = (int)rte_socket_id(),
	    .nb_node_patterns = RTE_DIM(patterns),
	    .node_patterns = patterns,
	};

	snprintf(src, sizeof(src), "sc_src_k%u", k);
	snprintf(chain, sizeof(chain), "sc_k%u_w*", k);
	snprintf(name, sizeof(name), "stagecost_k%u", k);
	if (rte_graph_is_invalid(rte_graph_create(name, &prm))) {
		fprintf(stderr, "podwire-stagecost: graph \"%s\" (K=%u): rte_graph_create: %s\n",
			name, k, rte_strerror(rte_errno));
		return NULL;
	}
	return rte_graph_lookup(name);
}

static __rte_noinline void sc_graph_run(struct rte_graph *g)
{
	rte_graph_walk(g);
}

/* ---- timing ---- */

struct sc_state {
	struct sc_ctx ctx[SC_NB_SCHEMES]; /* SC_GRAPH's is sc_graph_ctx */
	struct sc_burst burst;
	struct sc_table table[SC_NB_K], mtable[SC_NB_K];
	struct rte_graph *graph[SC_NB_K];
};

static struct sc_ctx *sc_scheme_ctx(struct sc_state *st, enum sc_scheme s)
{
	return s == SC_GRAPH ? &sc_graph_ctx : &st->ctx[s];
}

static void sc_bursts(struct sc_state *st, enum sc_scheme s, unsigned int ki, unsigned int n)
{
	switch (s) {
	case SC_DIRECT:
		for (unsigned int j = 0; j < n; j++)
			sc_direct_run(&st->ctx[SC_DIRECT], &st->burst, sc_k[ki]);
		break;
	case SC_TABLE:
		for (unsigned int j = 0; j < n; j++)
			sc_table_run(&st->ctx[SC_TABLE], &st->burst, &st->table[ki]);
		break;
	case SC_TABLE_MBUF:
		for (unsigned int j = 0; j < n; j++)
			sc_table_run(&st->ctx[SC_TABLE_MBUF], &st->burst, &st->mtable[ki]);
		break;
	default:
		for (unsigned int j = 0; j < n; j++)
			sc_graph_run(st->graph[ki]);
		break;
	}
}

static unsigned long sc_unicast(const struct sc_counters *c)
{
	uint64_t n = 0;

	for (unsigned int p = 0; p < SC_PORTS; p++)
		n += c->tx[p];
	return (unsigned long)n;
}

static unsigned long sc_drops(const struct sc_counters *c)
{
	uint64_t n = 0;

	for (unsigned int r = 0; r < SC_NB_DROPS; r++)
		n += c->drop[r];
	return (unsigned long)n;
}

/* One burst through each scheme from zeroed counters: every scheme must
 * count the same frames per output, drop reason and metadata sum. */
static int sc_check(struct sc_state *st, unsigned int ki, struct sc_counters *ref)
{
	for (int s = 0; s < SC_NB_SCHEMES; s++) {
		struct sc_ctx *c = sc_scheme_ctx(st, s);

		memset(&c->cnt, 0, sizeof(c->cnt));
		sc_bursts(st, s, ki, 1);
		if (s > 0 && memcmp(&c->cnt, ref, sizeof(*ref)) != 0) {
			fprintf(stderr,
				"podwire-stagecost: K=%u: %s counted differently from %s (unicast "
				"%lu vs %lu, flood %lu vs %lu, drop %lu vs %lu, tx calls %lu vs "
				"%lu, sum %lu vs %lu): the schemes must do the same work\n",
				sc_k[ki], sc_scheme_name[s], sc_scheme_name[0], sc_unicast(&c->cnt),
				sc_unicast(ref), (unsigned long)c->cnt.flood,
				(unsigned long)ref->flood, sc_drops(&c->cnt), sc_drops(ref),
				(unsigned long)c->cnt.tx_calls, (unsigned long)ref->tx_calls,
				(unsigned long)c->cnt.sum, (unsigned long)ref->sum);
			return -EINVAL;
		}
		if (s == 0)
			*ref = c->cnt;
	}
	return 0;
}

/* Cycles per frame of each slice of the current run: [round][K][scheme]. */
static double sc_slices[SC_MAX_ROUNDS][SC_NB_K][SC_NB_SCHEMES];

/* Interleaved slices for SECONDS (at most SC_MAX_ROUNDS rounds of every
 * scheme and K); returns the number of rounds. */
static unsigned int sc_run(struct sc_state *st, double seconds, unsigned int slice)
{
	uint64_t end = rte_rdtsc() + (uint64_t)(seconds * (double)rte_get_tsc_hz());
	unsigned int round = 0;

	do {
		for (unsigned int ki = 0; ki < SC_NB_K; ki++) {
			for (unsigned int i = 0; i < SC_NB_SCHEMES; i++) {
				enum sc_scheme s = (round + i) % SC_NB_SCHEMES;
				uint64_t t0 = rte_rdtsc();

				sc_bursts(st, s, ki, slice);
				sc_slices[round][ki][s] =
				    (double)(rte_rdtsc() - t0) / ((double)slice * SC_BURST);
			}
		}
		round++;
	} while (round < SC_MAX_ROUNDS && rte_rdtsc() < end);
	return round;
}

static int sc_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct sc_stat {
	double med, min, max;
};

/* Sorts V (N >= 1). */
static struct sc_stat sc_stat(double *v, unsigned int n)
{
	struct sc_stat r;

	qsort(v, n, sizeof(*v), sc_cmp_double);
	r.med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	r.min = v[0];
	r.max = v[n - 1];
	return r;
}

/* A run's figures: per (K, scheme), the median over its slices of cycles
 * per frame, and of the difference to direct's slice of the same round. A
 * slice during which the lcore was preempted (this machine is shared) is
 * an outlier the median ignores; a mean would not. */
struct sc_run_result {
	unsigned int rounds;
	unsigned int slow; /* slices over twice their median: preempted, mostly */
	double cpf[SC_NB_K][SC_NB_SCHEMES];
	double diff[SC_NB_K][SC_NB_SCHEMES];
};

static void sc_reduce(unsigned int rounds, struct sc_run_result *res)
{
	static double v[SC_MAX_ROUNDS];

	res->rounds = rounds;
	res->slow = 0;
	for (unsigned int ki = 0; ki < SC_NB_K; ki++) {
		for (int s = 0; s < SC_NB_SCHEMES; s++) {
			for (unsigned int r = 0; r < rounds; r++)
				v[r] = sc_slices[r][ki][s];
			res->cpf[ki][s] = sc_stat(v, rounds).med;
			for (unsigned int r = 0; r < rounds; r++)
				res->slow += sc_slices[r][ki][s] > 2 * res->cpf[ki][s];
			for (unsigned int r = 0; r < rounds; r++)
				v[r] = sc_slices[r][ki][s] - sc_slices[r][ki][SC_DIRECT];
			res->diff[ki][s] = sc_stat(v, rounds).med;
		}
	}
}

/* ---- setup ---- */

/* 64-byte frames whose destinations make the split's share: per burst of
 * 32, 4 broadcast (flood), 2 VLAN-tagged and 4 for the ingress port
 * (drop), 22 unicast to ports 1-3. */
static int sc_frames_make(struct rte_mempool *mp)
{
	for (unsigned int j = 0; j < SC_BURST; j++) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
		uint8_t *h;

		if (m == NULL)
			return -ENOMEM;
		h = (uint8_t *)rte_pktmbuf_append(m, 64);
		if (h == NULL)
			return -ENOSPC;
		memset(h, 0, 64);
		h[0] = 0x02;
		h[5] = (uint8_t)(1 + j % 3);
		if (j % 8 == 3)
			memset(h, 0xff, 6);
		else if (j % 8 == 5)
			h[5] = (uint8_t)sc_in_port;
		h[6] = 0x02;
		h[11] = (uint8_t)(0x10 + j);
		h[12] = 0x08; /* IPv4 */
		if (j % 16 == 7) {
			h[12] = 0x81;
			h[13] = 0x00;
		}
		h[14] = 0x45;
		m->port = sc_in_port;
		sc_mbufs[j] = m;
	}
	return 0;
}

static int sc_parse_uint(const char *opt, const char *s, unsigned int lo, unsigned int hi,
			 unsigned int *v)
{
	unsigned long x;
	char *e;

	errno = 0;
	x = strtoul(s, &e, 10);
	if (errno != 0 || e == s || *e != '\0' || x < lo || x > hi) {
		fprintf(stderr, "podwire-stagecost: %s \"%s\": give an integer from %u to %u\n",
			opt, s, lo, hi);
		return -EINVAL;
	}
	*v = (unsigned int)x;
	return 0;
}

static int sc_parse_seconds(const char *opt, const char *s, double lo, double *v)
{
	char *e;
	double x;

	errno = 0;
	x = strtod(s, &e);
	if (errno != 0 || e == s || *e != '\0' || !(x >= lo && x <= 600)) {
		fprintf(stderr, "podwire-stagecost: %s \"%s\": give seconds from %g to 600\n", opt,
			s, lo);
		return -EINVAL;
	}
	*v = x;
	return 0;
}

struct sc_opts {
	unsigned int runs, slice;
	double seconds, warmup;
	int per_run;
};

static const char sc_usage[] = "usage: podwire-stagecost [EAL options] -- [--runs N] "
			       "[--seconds S] [--warmup S] [--slice BURSTS] [--per-run]\n";

/* 0, 1 after --help, or -EINVAL. */
static int sc_parse(int argc, char **argv, struct sc_opts *o)
{
	static const struct option longopts[] = {
	    {"runs", required_argument, NULL, 'r'},
	    {"seconds", required_argument, NULL, 's'},
	    {"warmup", required_argument, NULL, 'w'},
	    {"slice", required_argument, NULL, 'b'},
	    {"per-run", no_argument, NULL, 'p'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c;

	*o = (struct sc_opts){.runs = 7, .slice = 256, .seconds = 2, .warmup = 0.5};
	optind = 1;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'r':
			if (sc_parse_uint("--runs", optarg, 1, SC_MAX_RUNS, &o->runs) < 0)
				return -EINVAL;
			break;
		case 's':
			if (sc_parse_seconds("--seconds", optarg, 0.001, &o->seconds) < 0)
				return -EINVAL;
			break;
		case 'w':
			if (sc_parse_seconds("--warmup", optarg, 0, &o->warmup) < 0)
				return -EINVAL;
			break;
		case 'b':
			if (sc_parse_uint("--slice", optarg, 1, 1000000, &o->slice) < 0)
				return -EINVAL;
			break;
		case 'p':
			o->per_run = 1;
			break;
		case 'h':
			printf("%s", sc_usage);
			return 1;
		default:
			fprintf(stderr, "%s", sc_usage);
			return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "podwire-stagecost: unexpected argument \"%s\"\n", argv[optind]);
		return -EINVAL;
	}
	return 0;
}

static void sc_print_load(void)
{
	char buf[64] = "unknown";
	FILE *f = fopen("/proc/loadavg", "r");

	if (f != NULL) {
		if (fgets(buf, sizeof(buf), f) != NULL)
			buf[strcspn(buf, "\n")] = '\0';
		fclose(f);
	}
	printf("load average at start: %s\n", buf);
}

static void sc_print(const struct sc_opts *o, const struct sc_run_result *res)
{
	static double v[SC_MAX_RUNS];
	unsigned int rounds = 0, slow = 0;

	for (unsigned int r = 0; r < o->runs; r++) {
		rounds += res[r].rounds;
		slow += res[r].slow;
	}
	printf("\nper run: the median over its slices (%u slices of each scheme and K in all); "
	       "over runs:\n",
	       rounds);
	printf("%2s  %-10s  %-27s  %-27s\n", "", "", "cycles per frame", "added over direct");
	printf("%2s  %-10s  %7s %9s %9s  %7s %9s %9s\n", "K", "scheme", "median", "min", "max",
	       "median", "min", "max");
	for (unsigned int ki = 0; ki < SC_NB_K; ki++) {
		for (int s = 0; s < SC_NB_SCHEMES; s++) {
			struct sc_stat a, d;

			for (unsigned int r = 0; r < o->runs; r++)
				v[r] = res[r].cpf[ki][s];
			a = sc_stat(v, o->runs);
			printf("%2u  %-10s  %7.1f %9.1f %9.1f", sc_k[ki], sc_scheme_name[s], a.med,
			       a.min, a.max);
			if (s == SC_DIRECT) {
				printf("  %7s\n", "-");
				continue;
			}
			for (unsigned int r = 0; r < o->runs; r++)
				v[r] = res[r].diff[ki][s];
			d = sc_stat(v, o->runs);
			printf("  %+7.1f %+9.1f %+9.1f\n", d.med, d.min, d.max);
		}
	}
	/* The spread: how far the slowest run is from the fastest, per scheme,
	 * which on a VM shows the vCPU's changes of speed. */
	printf("\nspread (slowest run / fastest run, worst K):");
	for (int s = 0; s < SC_NB_SCHEMES; s++) {
		double worst = 0;

		for (unsigned int ki = 0; ki < SC_NB_K; ki++) {
			struct sc_stat a;

			for (unsigned int r = 0; r < o->runs; r++)
				v[r] = res[r].cpf[ki][s];
			a = sc_stat(v, o->runs);
			worst = RTE_MAX(worst, a.max / a.min);
		}
		printf(" %s %.2fx", sc_scheme_name[s], worst);
	}
	printf("\nslices that took over twice their median (the lcore preempted, mostly): %u of "
	       "%u\n",
	       slow, rounds * SC_NB_K * SC_NB_SCHEMES);
	if (!o->per_run)
		return;
	printf("\nper run, cycles per frame of");
	for (int s = 0; s < SC_NB_SCHEMES; s++)
		printf("%s%s", s ? "/" : " ", sc_scheme_name[s]);
	printf(":\n");
	for (unsigned int r = 0; r < o->runs; r++) {
		printf("run %u (%u rounds):", r + 1, res[r].rounds);
		for (unsigned int ki = 0; ki < SC_NB_K; ki++) {
			printf("  K=%u", sc_k[ki]);
			for (int s = 0; s < SC_NB_SCHEMES; s++)
				printf("%s%.1f", s ? "/" : " ", res[r].cpf[ki][s]);
		}
		printf("\n");
	}
}

int main(int argc, char **argv)
{
	static const struct rte_mbuf_dynfield md_desc = {
	    .name = "podwire_stagecost_md",
	    .size = sizeof(struct sc_md),
	    .align = __alignof__(struct sc_md),
	};
	static struct sc_run_result res[SC_MAX_RUNS];
	static struct sc_state st;
	struct sc_counters ref[SC_NB_K];
	struct rte_mempool *mp;
	struct sc_opts o;
	int n, rc = 1;

	n = rte_eal_init(argc, argv);
	if (n < 0) {
		fprintf(stderr, "podwire-stagecost: rte_eal_init: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	argv[n] = argv[0];
	n = sc_parse(argc - n, argv + n, &o);
	if (n != 0) {
		rc = n > 0 ? 0 : 1; /* --help or a bad option */
		goto out;
	}

	sc_md_off = rte_mbuf_dynfield_register(&md_desc);
	mp = rte_pktmbuf_pool_create("stagecost", 2 * SC_BURST - 1, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				     (int)rte_socket_id());
	if (sc_md_off < 0 || mp == NULL) {
		fprintf(stderr,
			"podwire-stagecost: mbuf pool or dynfield: %s (give EAL -m 64 or "
			"more)\n",
			rte_strerror(rte_errno));
		goto out;
	}
	if (sc_frames_make(mp) < 0) {
		fprintf(stderr, "podwire-stagecost: could not build %d frames\n", SC_BURST);
		goto out;
	}
	for (unsigned int ki = 0; ki < SC_NB_K; ki++) {
		sc_table_build(&st.table[ki], sc_k[ki], sc_work_fn, sc_stage_split,
			       sc_stage_output);
		sc_table_build(&st.mtable[ki], sc_k[ki], sc_mwork_fn, sc_mstage_split,
			       sc_mstage_output);
		st.graph[ki] = sc_graph_create(sc_k[ki]);
		if (st.graph[ki] == NULL)
			goto out;
		if (sc_check(&st, ki, &ref[ki]) < 0)
			goto out;
	}

	printf("podwire-stagecost: bursts of %d mbufs on lcore %u, TSC %.3f GHz; %u runs of "
	       "%g s after %g s warm-up, schemes interleaved in slices of %u bursts\n",
	       SC_BURST, rte_lcore_id(), (double)rte_get_tsc_hz() / 1e9, o.runs, o.seconds,
	       o.warmup, o.slice);
	printf(
	    "split per burst (every scheme counted the same, for each K): unicast %lu to %u ports "
	    "in %lu tx calls, flood %lu, drop %lu hairpin + %lu vlan\n",
	    sc_unicast(&ref[0]),
	    (unsigned int)((ref[0].tx[0] > 0) + (ref[0].tx[1] > 0) + (ref[0].tx[2] > 0) +
			   (ref[0].tx[3] > 0)),
	    (unsigned long)(ref[0].tx_calls - (ref[0].flood > 0)), (unsigned long)ref[0].flood,
	    (unsigned long)ref[0].drop[SC_DROP_HAIRPIN], (unsigned long)ref[0].drop[SC_DROP_VLAN]);
	sc_print_load();
	fflush(stdout);

	if (o.warmup > 0)
		sc_run(&st, o.warmup, o.slice);
	for (unsigned int r = 0; r < o.runs; r++)
		sc_reduce(sc_run(&st, o.seconds, o.slice), &res[r]);
	sc_print(&o, res);
	rc = 0;
out:
	rte_eal_cleanup();
	return rc;
}

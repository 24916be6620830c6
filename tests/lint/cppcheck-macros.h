/* What cppcheck needs to know of the system's and DPDK's macros to read
 * podwire's code (it is not given their headers: too slow, too noisy). */
#include "/usr/include/x86_64-linux-gnu/sys/queue.h"
#define RTE_INIT(f) static void f(void)
#define __rte_cache_aligned
#define likely(x)	    (x)
#define unlikely(x)	    (x)
#define RTE_DIM(a)	    (sizeof(a) / sizeof((a)[0]))
#define RTE_SET_USED(x)	    (void)(x)
#define RTE_MIN(a, b)	    ((a) < (b) ? (a) : (b))
#define RTE_MAX(a, b)	    ((a) > (b) ? (a) : (b))
#define RTE_BE16(x)	    (x)
#define RTE_CACHE_LINE_SIZE 64
#define cJSON_ArrayForEach(e, a)                                                                   \
	for ((e) = (a) != NULL ? (a)->child : NULL; (e) != NULL; (e) = (e)->next)

/* SPDX-License-Identifier: BSD-3-Clause */
/* Control-plane events; see notify.h. */
#include <errno.h>
#include <stdlib.h>

#include "core/notify.h"

struct sub {
	notify_fn fn;
	void *ctx;
	struct sub *next;
};

static struct sub *subs[NOTIFY_EVENT_COUNT];

int notify_subscribe(enum notify_event ev, notify_fn fn, void *ctx)
{
	struct sub *s, **tail;

	if ((unsigned int)ev >= NOTIFY_EVENT_COUNT || fn == NULL)
		return -EINVAL;
	s = malloc(sizeof(*s));
	if (s == NULL)
		return -ENOMEM;
	*s = (struct sub){.fn = fn, .ctx = ctx};
	for (tail = &subs[ev]; *tail != NULL; tail = &(*tail)->next)
		;
	*tail = s;
	return 0;
}

void notify_unsubscribe(enum notify_event ev, notify_fn fn, void *ctx)
{
	if ((unsigned int)ev >= NOTIFY_EVENT_COUNT)
		return;
	for (struct sub **p = &subs[ev]; *p != NULL; p = &(*p)->next)
		if ((*p)->fn == fn && (*p)->ctx == ctx) {
			struct sub *s = *p;

			*p = s->next;
			free(s);
			return;
		}
}

void notify_publish(enum notify_event ev, const void *arg)
{
	struct sub *s, *next;

	if ((unsigned int)ev >= NOTIFY_EVENT_COUNT)
		return;
	/* next is read first: the call may unsubscribe (free) s. */
	for (s = subs[ev]; s != NULL; s = next) {
		next = s->next;
		s->fn(arg, s->ctx);
	}
}

unsigned int notify_count(enum notify_event ev)
{
	unsigned int n = 0;

	if ((unsigned int)ev >= NOTIFY_EVENT_COUNT)
		return 0;
	for (const struct sub *s = subs[ev]; s != NULL; s = s->next)
		n++;
	return n;
}

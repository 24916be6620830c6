/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Control-plane events, published by the module where they happen and
 * heard by any number of modules that subscribed (at their init): the
 * model does not know that CDI specs mirror its ports, sriov/ does not
 * know the model that can tell which port holds a PCI device. Subscribers
 * of an event are called in subscription order, on the control thread,
 * with ctl_lock held as the publisher holds it; arg is the event's (see
 * each). Nothing here blocks or allocates on publish.
 */
#ifndef PODWIRE_CORE_NOTIFY_H
#define PODWIRE_CORE_NOTIFY_H

enum notify_event {
	/* A port was created / is being deleted (still whole, out of the
	 * datapath): arg is the const struct port * (model/port.h). */
	NOTIFY_PORT_CREATED,
	NOTIFY_PORT_DELETED,
	/* A port is made and registered but not yet in the datapath: arg
	 * is the struct port * (model/port.h). What workers must see from
	 * the port's first frame (its rate limits, its access lists) is set
	 * here; NOTIFY_PORT_CREATED comes once it is published, or
	 * NOTIFY_PORT_DELETED when publishing it fails. */
	NOTIFY_PORT_ADDING,
	/* Networks or ports changed and state.json was written (or writing
	 * it failed): arg NULL. */
	NOTIFY_STATE_SAVED,
	/* The VF allocations changed (vfs.json saved, or not): arg NULL. */
	NOTIFY_VF_POOL_CHANGED,
	/* An API request's handler returned, success or not, before the
	 * answer goes out: arg NULL. What mirrors the model is brought up to
	 * date here, once per request. */
	NOTIFY_API_REQUEST_DONE,
	/* A question: which port uses PCI address q->pci? arg is a const
	 * struct notify_pci_user *; a subscriber that knows sets *q->user. */
	NOTIFY_PCI_USER,
	NOTIFY_EVENT_COUNT
};

struct notify_pci_user {
	const char *pci;
	const char **user; /* left as it is when no subscriber knows */
};

typedef void (*notify_fn)(const void *arg, void *ctx);

/* fn(arg, ctx) on every publish of ev from now on, after the subscribers
 * already there. 0, -EINVAL (no such event, fn NULL), -ENOMEM. */
int notify_subscribe(enum notify_event ev, notify_fn fn, void *ctx);
/* Forgets the subscription of fn with ctx to ev; none is fine. A
 * subscriber may unsubscribe itself from within its call. */
void notify_unsubscribe(enum notify_event ev, notify_fn fn, void *ctx);
/* Calls ev's subscribers with arg, in subscription order. */
void notify_publish(enum notify_event ev, const void *arg);
/* How many subscribe to ev (for tests and diagnostics). */
unsigned int notify_count(enum notify_event ev);

#endif

/* SPDX-License-Identifier: BSD-3-Clause */
/* Networks and ports survive restarts: state.json under the state dir,
 * rewritten atomically after every change, replayed at start-up. */
#ifndef PODWIRE_MODEL_STATE_H
#define PODWIRE_MODEL_STATE_H

#include <stddef.h>

/* Saves networks and ports under dir; logs and fills msg on failure.
 * Publishes NOTIFY_STATE_SAVED (core/notify.h) either way: the model
 * changed. */
int state_save(char *msg, size_t len);
/* Recreates networks and ports from the state dir: 0; -EIO when some
 * could not be (logged, the rest restored); -EBADMSG when the file cannot
 * be read or is of a newer version (nothing restored: podwired must not
 * start and overwrite it). */
int state_restore(void);
/* Where state.json lives (set once at start-up). */
void state_set_dir(const char *dir);

#endif

/* SPDX-License-Identifier: BSD-3-Clause */
/* The sizes every module agrees on: ports, workers, queues, the burst. */
#ifndef PODWIRE_CORE_LIMITS_H
#define PODWIRE_CORE_LIMITS_H

#define PW_MAX_PORTS   1024
#define PW_MAX_WORKERS 64
#define PW_BURST       32
/* Rx (and tx) queues of one port: vhost-user's --queues, memif's rings. */
#define PW_MAX_QUEUES 16

#endif

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * For the libFuzzer harnesses of tests/fuzz/ (built with -Dfuzz=true and
 * clang, see run.sh): a scratch directory per process, and a file or a
 * string made from the input. (run.sh closes the code's stdout and stderr
 * with -close_fd_mask=3: libFuzzer's own report still comes out.)
 */
#ifndef PODWIRE_FUZZ_H
#define PODWIRE_FUZZ_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A directory of this process, made once. */
static inline const char *fuzz_dir(void)
{
	static char dir[64];

	if (dir[0] == '\0') {
		/* tmpfs: the harnesses that read files run at memory speed. */
		snprintf(dir, sizeof(dir), "/dev/shm/pwfuzz.XXXXXX");
		if (mkdtemp(dir) == NULL)
			abort();
	}
	return dir;
}

/* Writes data to DIR/name; returns the path (static). */
static inline const char *fuzz_file(const char *name, const uint8_t *data, size_t size)
{
	static char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", fuzz_dir(), name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || (size != 0 && write(fd, data, size) != (ssize_t)size))
		abort();
	close(fd);
	return path;
}

/* The input as a NUL-terminated string (malloc'd: ASan sees its end). */
static inline char *fuzz_str(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (s == NULL)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

#endif

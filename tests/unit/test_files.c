/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of control/files.c: atomic writes that follow no symlink a
 * writer of the directory planted at the temporary file's name. */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "files.h"
#include "unit.h"

static char tmp[64];

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	CU_ASSERT_FATAL(f != NULL);
	fputs(text, f);
	fclose(f);
}

static char *read_text(const char *path)
{
	static char buf[4096];
	FILE *f = fopen(path, "r");
	size_t n;

	if (f == NULL)
		return "(none)";
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static cJSON *doc(void)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "written", "by podwire");
	return o;
}

/* path is a regular file (not a symlink) holding doc(). */
static void assert_written(const char *path)
{
	struct stat st;
	cJSON *d = NULL;

	CU_ASSERT_FATAL(lstat(path, &st) == 0);
	CU_ASSERT(S_ISREG(st.st_mode));
	ASSERT_INT_EQ(file_read_json(path, &d), 0);
	ASSERT_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItem(d, "written")), "by podwire");
	cJSON_Delete(d);
}

/* A symlink at json_file_write's temporary name (path.tmp.<pid>) to a
 * file of someone else's: the file stays as it was, path gets the
 * document, and nothing is left at the temporary name. */
static void test_json_write_planted_symlink(void)
{
	char victim[128], path[128], tmpname[160], msg[512] = "";
	cJSON *d = doc();
	struct stat st;

	snprintf(victim, sizeof(victim), "%s/victim", tmp);
	snprintf(path, sizeof(path), "%s/podwire.json", tmp);
	snprintf(tmpname, sizeof(tmpname), "%s.tmp.%d", path, (int)getpid());
	write_text(victim, "precious\n");
	CU_ASSERT_FATAL(symlink(victim, tmpname) == 0);
	ASSERT_INT_EQ(json_file_write(path, d, 0640, (gid_t)-1, msg, sizeof(msg)), 0);
	ASSERT_STR_EQ(read_text(victim), "precious\n");
	assert_written(path);
	CU_ASSERT(lstat(tmpname, &st) != 0 && errno == ENOENT);
	cJSON_Delete(d);
}

/* The same for state files (a fixed name.tmp), and a temp file a crash
 * left behind is no obstacle. */
static void test_state_write_planted_symlink(void)
{
	char victim[128], tmpname[160], path[128], msg[512] = "";
	cJSON *d = doc();

	snprintf(victim, sizeof(victim), "%s/victim2", tmp);
	snprintf(path, sizeof(path), "%s/state.json", tmp);
	snprintf(tmpname, sizeof(tmpname), "%s.tmp", path);
	write_text(victim, "precious\n");
	CU_ASSERT_FATAL(symlink(victim, tmpname) == 0);
	ASSERT_INT_EQ(state_file_write(tmp, "state.json", d, msg, sizeof(msg)), 0);
	ASSERT_STR_EQ(read_text(victim), "precious\n");
	assert_written(path);
	/* A leftover regular temp file, as a crash leaves it. */
	write_text(tmpname, "{\"half\":");
	ASSERT_INT_EQ(state_file_write(tmp, "state.json", d, msg, sizeof(msg)), 0);
	assert_written(path);
	cJSON_Delete(d);
}

/* What cannot be removed from the temporary name (a directory) is an
 * error naming the file and the fix, and the old file stays. */
static void test_write_tmp_is_directory(void)
{
	char path[128], tmpname[160], msg[512] = "";
	cJSON *d = doc();

	snprintf(path, sizeof(path), "%s/dir.json", tmp);
	snprintf(tmpname, sizeof(tmpname), "%s.tmp", path);
	write_text(path, "{\"old\":1}\n");
	CU_ASSERT_FATAL(mkdir(tmpname, 0700) == 0);
	CU_ASSERT(state_file_write(tmp, "dir.json", d, msg, sizeof(msg)) < 0);
	ASSERT_CONTAINS(msg, tmpname);
	ASSERT_CONTAINS(msg, "remove what is there");
	ASSERT_STR_EQ(read_text(path), "{\"old\":1}\n");
	rmdir(tmpname);
	cJSON_Delete(d);
}

int main(void)
{
	static const struct unit_test tests[] = {
	    {"json_file_write follows no planted symlink", test_json_write_planted_symlink},
	    {"state_file_write follows no planted symlink", test_state_write_planted_symlink},
	    {"a directory at the temporary name is an error", test_write_tmp_is_directory},
	    {NULL, NULL},
	};
	return unit_run_in_tmpdir("files", tests, tmp, sizeof(tmp));
}

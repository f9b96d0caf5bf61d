/*
 * fuzz_tmp.h — the scratch directory the file-reading fuzz targets write
 * their input into.  The readers of src/core/sim/ read files by path, so
 * each run writes the input as files in one directory made at the first run
 * and removed when the process exits: under $TMPDIR when set, else under
 * /dev/shm when there is one (memory: ten times the runs per second of a
 * disk-backed /tmp), else /tmp.
 */
#ifndef GPUALLOC_FUZZ_TMP_H
#define GPUALLOC_FUZZ_TMP_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char fuzz_dir[512];
static const char *const *fuzz_names;
static int	fuzz_n_names;

static inline void
fuzz_tmp_cleanup(void)
{
	char		path[1024];

	for (int i = 0; i < fuzz_n_names; i++)
	{
		snprintf(path, sizeof(path), "%s/%s", fuzz_dir, fuzz_names[i]);
		unlink(path);
	}
	rmdir(fuzz_dir);
}

/*
 * The scratch directory; names lists every file a target may write, for the
 * clean-up at exit.
 */
static inline const char *
fuzz_tmp_dir(const char *const *names, int n_names)
{
	if (fuzz_dir[0] == '\0')
	{
		const char *tmp = getenv("TMPDIR");

		if (tmp == NULL || tmp[0] == '\0')
			tmp = access("/dev/shm", W_OK | X_OK) == 0 ? "/dev/shm" : "/tmp";
		snprintf(fuzz_dir, sizeof(fuzz_dir), "%s/gpualloc-fuzz-XXXXXX", tmp);
		if (mkdtemp(fuzz_dir) == NULL)
		{
			perror("mkdtemp");
			abort();
		}
		fuzz_names = names;
		fuzz_n_names = n_names;
		atexit(fuzz_tmp_cleanup);
	}
	return fuzz_dir;
}

/* Write len bytes as dir/name; a failure to write is the harness's, so abort. */
static inline void
fuzz_tmp_write(const char *dir, const char *name, const uint8_t *data, size_t len)
{
	char		path[1024];
	FILE	   *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (f == NULL || (len > 0 && fwrite(data, 1, len, f) != len) || fclose(f) != 0)
	{
		perror(path);
		abort();
	}
}

static inline void
fuzz_tmp_remove(const char *dir, const char *name)
{
	char		path[1024];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(path);
}

#endif

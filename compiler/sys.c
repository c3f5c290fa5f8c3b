/* sys.c: the OS layer: processes, whole files, temporary names, the
 * toolkit's location. It reports nothing; plk.h says what each failure
 * leaves in errno. */
#include <errno.h>
#include <limits.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "plk.h"

#ifndef PLK_DEFAULT_CUDA_HOME
#define PLK_DEFAULT_CUDA_HOME "/usr/local/cuda"
#endif

extern char **environ;

int sys_run(char *const argv[], char **log)
{
	int fd[2];
	if (log && (*log = NULL, pipe(fd)))
		return -1;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	if (log) {
		posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
		posix_spawn_file_actions_adddup2(&fa, fd[1], 2);
		posix_spawn_file_actions_addclose(&fa, fd[0]);
	}
	pid_t pid;
	int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (log) {
		close(fd[1]);
		FILE *f = fdopen(fd[0], "rb");
		size_t n;
		*log = f ? sys_read_stream(f, &n) : NULL;
		if (f)
			fclose(f);
		else
			close(fd[0]);
	}
	if (rc)
		return -1;
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

char *sys_read_stream(FILE *f, size_t *len)
{
	size_t cap = 1 << 14, n = 0, k;
	char *buf = malloc(cap + 1);
	while (buf && (k = fread(buf + n, 1, cap - n, f)) > 0) {
		n += k;
		if (n == cap) {
			char *nb = realloc(buf, (cap *= 2) + 1);
			if (!nb)
				free(buf);
			buf = nb;
		}
	}
	if (ferror(f) || !buf) {
		free(buf);
		return NULL;
	}
	buf[n] = 0;
	*len = n;
	return buf;
}

char *sys_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = sys_read_stream(f, len);
	fclose(f);
	return buf;
}

int sys_write_file(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	int bad = fwrite(data, 1, n, f) != n;
	return fclose(f) || bad ? -1 : 0;
}

int sys_tmp_file(char *path, size_t n, const char *prefix)
{
	if (snprintf(path, n, "%sXXXXXX", prefix) >= (int)n)
		return -1;
	int fd = mkstemp(path);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

int sys_tmp_dir(char *path, size_t n, const char *prefix)
{
	if (snprintf(path, n, "%sXXXXXX", prefix) >= (int)n || !mkdtemp(path))
		return -1;
	return 0;
}

int sys_mkdirs(const char *path)
{
	char buf[PATH_MAX];
	if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
		return -1;
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(buf, 0777) && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return mkdir(buf, 0777) && errno != EEXIST ? -1 : 0;
}

int sys_exe_path(char *path, size_t n)
{
	ssize_t k = readlink("/proc/self/exe", path, n - 1);
	if (k <= 0)
		return -1;
	path[k] = 0;
	return 0;
}

const char *sys_cuda_home(void)
{
	const char *h = getenv("CUDA_HOME");
	return h && *h ? h : PLK_DEFAULT_CUDA_HOME;
}

/* dir holds stdlib/plk.cuh: a PipeLink data directory. */
static int is_home(const char *dir)
{
	char probe[PATH_MAX];
	return snprintf(probe, sizeof probe, "%s/stdlib/plk.cuh", dir) < (int)sizeof probe && access(probe, R_OK) == 0;
}

int sys_home(char *path, size_t n)
{
	const char *env = getenv("PLK_HOME");
	if (n < PATH_MAX)
		return -1;                 /* realpath's buffer */
	if (env && *env)
		return snprintf(path, n, "%s", env) < (int)n && is_home(env) ? 0 : -1;
	char exe[PATH_MAX], real[PATH_MAX];
	if (sys_exe_path(exe, sizeof exe) || !realpath(exe, real))
		return -1;
	char *slash = strrchr(real, '/');
	if (!slash)
		return -1;
	*slash = 0;                    /* the binary's directory */
	static const char *const up[] = { "/../share/pipelink", "/..", "/../..", "/../../.." };
	for (size_t i = 0; i < sizeof up / sizeof up[0]; i++) {
		char cand[PATH_MAX + 32];
		snprintf(cand, sizeof cand, "%s%s", real, up[i]);
		if (is_home(cand) && realpath(cand, path))
			return 0;
	}
	return -1;
}

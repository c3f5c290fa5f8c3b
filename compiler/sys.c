/* sys.c: the OS layer: processes, whole files, temporary names, the
 * toolkit's location. It reports nothing; plk.h says what each failure
 * leaves in errno.
 *
 * Every file plkc reads goes through sys_read_file: regular files only
 * (a FIFO would block, /dev/zero never end), opened without blocking, and
 * at most a given size. Every file it writes is written under a temporary
 * name beside its destination and renamed into place (sys_commit), so a
 * reader sees the old file or the new one, never a part. Temporary names
 * carry the writer's process id: sys_sweep removes those whose writer is
 * gone (a run killed with SIGKILL cleans up nothing). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "plk.h"

#ifndef PLK_DEFAULT_CUDA_HOME
#define PLK_DEFAULT_CUDA_HOME "/usr/local/cuda"
#endif

extern char **environ;

/* The most of a tool's output kept (nvcc can print a lot). */
enum { LOG_MAX = 1 << 20 };

int sys_run(char *const argv[], char **log)
{
	return sys_run_in(NULL, argv, log);
}

int sys_run_in(const char *dir, char *const argv[], char **log)
{
	int fd[2];
	if (log && (*log = NULL, pipe(fd)))
		return -1;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	if (dir)
		posix_spawn_file_actions_addchdir_np(&fa, dir);
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
		*log = f ? sys_read_stream(f, LOG_MAX, &n) : NULL;
		if (f)
			fclose(f);
		else
			close(fd[0]);
	}
	return rc ? -1 : sys_wait(pid);
}

int sys_spawn_in(const char *dir, char *const argv[], const char *log, long *pid)
{
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	if (dir)
		posix_spawn_file_actions_addchdir_np(&fa, dir);
	posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	posix_spawn_file_actions_adddup2(&fa, 1, 2);
	pid_t p;
	int rc = posix_spawnp(&p, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc) {
		errno = rc;
		return -1;
	}
	*pid = p;
	return 0;
}

int sys_wait(long pid)
{
	int st;
	while (waitpid((pid_t)pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

char *sys_read_stream(FILE *f, size_t max, size_t *len)
{
	size_t cap = 1 << 14, n = 0, k;
	char *buf = malloc(cap + 1);
	char drop[4096];
	while (buf) {
		if (n == max) {        /* keep nothing more, but read to the end */
			if (fread(drop, 1, sizeof drop, f) == 0)
				break;
			continue;
		}
		if ((k = fread(buf + n, 1, (cap < max ? cap : max) - n, f)) == 0)
			break;
		n += k;
		if (n == cap && cap < max) {
			size_t nc = cap > max / 2 ? max : cap * 2;
			char *nb = realloc(buf, nc + 1);
			if (!nb)
				free(buf);
			buf = nb;
			cap = nc;
		}
	}
	if (!buf || ferror(f)) {
		free(buf);
		return NULL;
	}
	buf[n] = 0;
	*len = n;
	return buf;
}

char *sys_read_file(const char *path, size_t max, size_t *len)
{
	/* O_NONBLOCK: opening a FIFO must not wait for a writer */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct stat st;
	int err = 0;
	if (fstat(fd, &st))
		err = errno;
	else if (S_ISDIR(st.st_mode))
		err = EISDIR;
	else if (!S_ISREG(st.st_mode))
		err = SYS_ENOTREG;
	else if ((uint64_t)st.st_size > max)
		err = EFBIG;
	char *buf = err ? NULL : malloc((size_t)st.st_size + 1);
	size_t n = 0;
	if (!err && !buf)
		err = ENOMEM;
	while (!err) {           /* the size fstat saw; a file that grew meanwhile is too large */
		char extra;
		ssize_t k = n < (size_t)st.st_size ? read(fd, buf + n, (size_t)st.st_size - n) : read(fd, &extra, 1);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			err = errno;
		else if (k == 0)
			break;
		else if (n == (size_t)st.st_size)
			err = EFBIG;
		else
			n += (size_t)k;
	}
	close(fd);
	if (err) {
		free(buf);
		errno = err;
		return NULL;
	}
	buf[n] = 0;
	*len = n;
	return buf;
}

const char *sys_strerror(int err)
{
	if (err == SYS_ENOTREG)
		return "not a regular file";
	if (err == EFBIG)
		return "file too large";
	return strerror(err);
}

int sys_write_file(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	int bad = fwrite(data, 1, n, f) != n;
	int err = errno;
	if (fclose(f) || bad) {
		if (bad)
			errno = err;
		return -1;
	}
	return 0;
}

int sys_tmp_file(char *path, size_t n, const char *prefix)
{
	if (snprintf(path, n, "%sXXXXXX", prefix) >= (int)n) {
		errno = ENAMETOOLONG;
		return -1;
	}
	int fd = mkstemp(path);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

int sys_tmp_dir(char *path, size_t n, const char *prefix)
{
	if (snprintf(path, n, "%sXXXXXX", prefix) >= (int)n) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return mkdtemp(path) ? 0 : -1;
}

/* ------------------------------------------------ temporaries, commits */

static void split(const char *target, char *dir, size_t n, const char **base)
{
	const char *sl = strrchr(target, '/');
	if (!sl)
		snprintf(dir, n, ".");
	else
		snprintf(dir, n, "%.*s", sl == target ? 1 : (int)(sl - target), target);
	*base = sl ? sl + 1 : target;
}

int sys_tmp_beside(char *path, size_t n, const char *target)
{
	char dir[PATH_MAX];
	const char *base;
	split(target, dir, sizeof dir, &base);
	char prefix[PATH_MAX];
	if (!*base || snprintf(prefix, sizeof prefix, "%s/.%s.tmp.%ld.", dir, base, (long)getpid()) >= (int)sizeof prefix) {
		errno = *base ? ENAMETOOLONG : EISDIR;
		return -1;
	}
	return sys_tmp_dir(path, n, prefix);
}

int sys_rmdir_files(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	struct dirent *e;
	char p[PATH_MAX];
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (snprintf(p, sizeof p, "%s/%s", dir, e->d_name) < (int)sizeof p)
			unlink(p);
	}
	closedir(d);
	return rmdir(dir);
}

/* The writer's pid in ".BASE.tmp.PID.XXXXXX"; 0 when the name is not one. */
static long tmp_pid(const char *name, const char *base)
{
	if (name[0] != '.')
		return 0;
	size_t bl = base ? strlen(base) : 0;
	if (base && (strncmp(name + 1, base, bl) || strncmp(name + 1 + bl, ".tmp.", 5)))
		return 0;
	const char *t = base ? name + 1 + bl : strstr(name, ".tmp.");
	if (!t)
		return 0;
	char *end;
	long pid = strtol(t + 5, &end, 10);
	return pid > 0 && *end == '.' && strlen(end) == 7 ? pid : 0;
}

void sys_sweep(const char *dir, const char *base)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	char p[PATH_MAX];
	time_t now = time(NULL);
	while ((e = readdir(d))) {
		long pid = tmp_pid(e->d_name, base);
		struct stat st;
		if (snprintf(p, sizeof p, "%s/%s", dir, e->d_name) >= (int)sizeof p || lstat(p, &st))
			continue;
		/* its writer is gone; or, whoever wrote it, it is a day old */
		int dead = pid > 0 && pid != (long)getpid() && kill((pid_t)pid, 0) && errno == ESRCH;
		int old = (pid > 0 || (!base && strstr(e->d_name, ".tmp"))) && now - st.st_mtime > 86400;
		if (!dead && !old)
			continue;
		if (S_ISDIR(st.st_mode))
			sys_rmdir_files(p);
		else
			unlink(p);
	}
	closedir(d);
}

int sys_commit(const char *const tmp[], const char *const dst[], int n, int *failed)
{
	char (*bak)[PATH_MAX] = calloc((size_t)n + 1, sizeof *bak);
	int *had = calloc((size_t)n + 1, sizeof *had);
	int renamed = 0, rc = 0, err = 0;
	if (failed)
		*failed = 0;
	if (!bak || !had) {
		free(bak);
		free(had);
		return -1;
	}
	for (int i = 0; i < n && !rc; i++) {      /* nothing in the way */
		struct stat st;
		had[i] = lstat(dst[i], &st) == 0;
		if (had[i] && S_ISDIR(st.st_mode))
			rc = -1, err = EISDIR;
		else if (snprintf(bak[i], PATH_MAX, "%s.old", tmp[i]) >= PATH_MAX)
			rc = -1, err = ENAMETOOLONG;
		if (rc && failed)
			*failed = i;
	}
	for (int i = 0; i < n && !rc; i++)        /* the old files kept, for a rollback */
		if (!had[i] || link(dst[i], bak[i]))
			bak[i][0] = 0;
	while (!rc && renamed < n) {
		if (rename(tmp[renamed], dst[renamed])) {
			rc = -1, err = errno;
			if (failed)
				*failed = renamed;
			break;
		}
		renamed++;
	}
	for (int i = 0; rc && i < renamed; i++) {   /* put back what was there */
		if (bak[i][0])
			rename(bak[i], dst[i]);
		else if (!had[i])
			unlink(dst[i]);
	}
	for (int i = 0; i < n; i++)
		if (bak[i][0])
			unlink(bak[i]);
	free(bak);
	free(had);
	if (rc)
		errno = err;
	return rc;
}

int sys_write_files(int n, const char *const dst[], const void *const data[], const size_t len[], int *failed)
{
	char (*dir)[PATH_MAX] = calloc((size_t)n + 1, sizeof *dir);
	char (*tmp)[PATH_MAX] = calloc((size_t)n + 1, sizeof *tmp);
	char (*real)[PATH_MAX] = calloc((size_t)n + 1, sizeof *real);
	const char **tp = calloc((size_t)n + 1, sizeof *tp), **dp = calloc((size_t)n + 1, sizeof *dp);
	int m = 0, rc = 0, err = 0, at = 0;
	*failed = 0;
	if (!dir || !tmp || !real || !tp || !dp)
		rc = -1, err = ENOMEM;
	for (int i = 0; i < n && !rc; i++) {
		struct stat st;
		const char *d = dst[i];
		*failed = i;
		if (stat(d, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
			/* a device or FIFO (/dev/null): written as it is, never replaced */
			if (sys_write_file(d, data[i], len[i]))
				rc = -1, err = errno;
			continue;
		}
		if (lstat(d, &st) == 0 && S_ISLNK(st.st_mode) && realpath(d, real[m]))
			d = real[m];     /* the file a link names is what gets replaced */
		if (sys_tmp_beside(dir[m], PATH_MAX, d) ||
		    snprintf(tmp[m], PATH_MAX, "%s/new", dir[m]) >= PATH_MAX ||
		    sys_write_file(tmp[m], data[i], len[i])) {
			rc = -1, err = errno;
			if (dir[m][0])
				m++;     /* its directory is removed below */
			break;
		}
		tp[m] = tmp[m];
		dp[m] = d;
		at = m;
		m++;
	}
	if (!rc && sys_commit(tp, dp, m, &at)) {
		rc = -1, err = errno;
		for (int i = 0, k = 0; i < n; i++) {      /* the index among dst */
			struct stat st;
			int direct = stat(dst[i], &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
			if (!direct && k++ == at) {
				*failed = i;
				break;
			}
		}
	}
	for (int i = 0; dir && i < m; i++)
		if (dir[i][0])
			sys_rmdir_files(dir[i]);
	free(dir);
	free(tmp);
	free(real);
	free(tp);
	free(dp);
	if (rc)
		errno = err;
	return rc;
}

int sys_same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* ----------------------------------------------------------------- misc */

int sys_mkdirs(const char *path)
{
	char buf[PATH_MAX];
	if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) {
		errno = ENAMETOOLONG;
		return -1;
	}
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

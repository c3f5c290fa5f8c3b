/* test_sys.c: sys.c (processes, whole files, temporary names) and
 * sha256.c (FIPS 180-4 vectors, length-prefixed fields). */
#include <errno.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "unit.h"

static void test_run(void)
{
	char *log;
	char *sh[] = { "sh", "-c", "echo out; echo err >&2; exit 3", NULL };
	CHECK_EQ_INT(sys_run(sh, &log), 3);
	CHECK_STR(log, "out\nerr\n");
	free(log);
	char *kill[] = { "sh", "-c", "kill -9 $$", NULL };
	CHECK_EQ_INT(sys_run(kill, &log), 128 + 9);
	CHECK_STR(log, "");
	free(log);
	char *none[] = { "/nonexistent/plkc-test-tool", NULL };
	CHECK_EQ_INT(sys_run(none, &log), -1);
	CHECK_STR(log, "");
	free(log);
	CHECK_EQ_INT(sys_run(none, NULL), -1);
	char *ok[] = { "true", NULL };
	CHECK_EQ_INT(sys_run(ok, NULL), 0);
	/* in a directory: the tool's working directory, ours unchanged */
	char here[PATH_MAX], after[PATH_MAX];
	CHECK(getcwd(here, sizeof here) != NULL);
	char *pwd[] = { "sh", "-c", "pwd -P", NULL };
	CHECK_EQ_INT(sys_run_in("/", pwd, &log), 0);
	CHECK_STR(log, "/\n");
	free(log);
	CHECK_EQ_INT(sys_run_in("/nonexistent/plkc-test-dir", pwd, &log), -1);
	free(log);
	CHECK(getcwd(after, sizeof after) != NULL && !strcmp(here, after));
}

/* Two at once, each its own log, waited for in either order; a tool
 * that cannot start, or cannot enter its directory, is -1 at once. */
static void test_spawn(const char *dir)
{
	char la[PATH_MAX + 8], lb[PATH_MAX + 8];
	snprintf(la, sizeof la, "%s/a.log", dir);
	snprintf(lb, sizeof lb, "%s/b.log", dir);
	char *a[] = { "sh", "-c", "sleep 0.2; echo a; exit 2", NULL };
	char *b[] = { "sh", "-c", "pwd -P; echo b >&2", NULL };
	long pa = 0, pb = 0;
	CHECK_EQ_INT(sys_spawn_in(NULL, a, la, &pa), 0);
	CHECK_EQ_INT(sys_spawn_in("/", b, lb, &pb), 0);
	CHECK(pa > 0 && pb > 0 && pa != pb);
	CHECK_EQ_INT(sys_wait(pb), 0);
	CHECK_EQ_INT(sys_wait(pa), 2);
	size_t n;
	char *t = sys_read_file(la, 1 << 10, &n);
	CHECK_STR(t, "a\n");
	free(t);
	t = sys_read_file(lb, 1 << 10, &n);
	CHECK_STR(t, "/\nb\n");
	free(t);
	CHECK_EQ_INT(sys_wait(pa), -1);   /* reaped already */
	char *none[] = { "/nonexistent/plkc-test-tool", NULL };
	long pn = 0;
	CHECK_EQ_INT(sys_spawn_in(NULL, none, la, &pn), -1);
	CHECK_EQ_INT(sys_spawn_in("/nonexistent/plkc-test-dir", b, lb, &pn), -1);
}

static void test_files(const char *dir)
{
	char path[PATH_MAX + 32], sub[PATH_MAX + 32];   /* dir, and a name under it */
	snprintf(path, sizeof path, "%s/f", dir);
	static const char data[] = "one\0two";
	CHECK_EQ_INT(sys_write_file(path, data, sizeof data), 0);
	size_t n = 0;
	char *t = sys_read_file(path, 64, &n);
	CHECK(t && n == sizeof data && !memcmp(t, data, n) && t[n] == 0);
	free(t);
	snprintf(sub, sizeof sub, "%s/none/f", dir);
	CHECK_EQ_INT(sys_write_file(sub, data, 1), -1);
	errno = 0;
	CHECK(!sys_read_file(sub, 64, &n) && errno == ENOENT);
	errno = 0;
	CHECK(!sys_read_file(dir, 64, &n) && errno == EISDIR);
	/* only regular files, never more than the cap: a FIFO neither blocks
	 * nor is read, /dev/zero is refused at once, a large file too */
	errno = 0;
	CHECK(!sys_read_file(path, sizeof data - 1, &n) && errno == EFBIG);
	t = sys_read_file(path, sizeof data, &n);
	CHECK(t && n == sizeof data);
	free(t);
	errno = 0;
	CHECK(!sys_read_file("/dev/zero", 1 << 20, &n) && errno == SYS_ENOTREG);
	snprintf(sub, sizeof sub, "%s/fifo", dir);
	CHECK_EQ_INT(mkfifo(sub, 0600), 0);
	errno = 0;
	CHECK(!sys_read_file(sub, 64, &n) && errno == SYS_ENOTREG);
	CHECK_STR(sys_strerror(SYS_ENOTREG), "not a regular file");
	unlink(sub);

	snprintf(sub, sizeof sub, "%s/a/b/c", dir);
	CHECK_EQ_INT(sys_mkdirs(sub), 0);
	CHECK_EQ_INT(sys_mkdirs(sub), 0);   /* already there */
	struct stat st;
	CHECK(stat(sub, &st) == 0 && S_ISDIR(st.st_mode));
	snprintf(sub, sizeof sub, "%s/f/x", dir);
	CHECK_EQ_INT(sys_mkdirs(sub), -1);  /* under a file */

	snprintf(sub, sizeof sub, "%s/t.", dir);
	CHECK_EQ_INT(sys_tmp_file(path, sizeof path, sub), 0);
	CHECK(!strncmp(path, sub, strlen(sub)) && strlen(path) == strlen(sub) + 6);
	CHECK(stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0);
	unlink(path);
	CHECK_EQ_INT(sys_tmp_dir(path, sizeof path, sub), 0);
	CHECK(stat(path, &st) == 0 && S_ISDIR(st.st_mode));
	rmdir(path);
	char small[8];
	errno = 0;
	CHECK_EQ_INT(sys_tmp_file(small, sizeof small, sub), -1);
	CHECK_EQ_INT(errno, ENAMETOOLONG);    /* not whatever errno held before */
	errno = 0;
	CHECK_EQ_INT(sys_tmp_dir(small, sizeof small, sub), -1);
	CHECK_EQ_INT(errno, ENAMETOOLONG);

	CHECK_EQ_INT(sys_exe_path(path, sizeof path), 0);
	CHECK(strstr(path, "test_sys") != NULL);
}

static int exists(const char *p)
{
	struct stat st;
	return lstat(p, &st) == 0;
}

static char *slurp(const char *p)
{
	size_t n;
	return sys_read_file(p, 1 << 20, &n);
}

/* Temporaries beside their target carry the writer's pid; a sweep removes
 * those of dead writers. Commits are all or nothing. */
static void test_commit(const char *dir)
{
	char a[PATH_MAX + 32], b[PATH_MAX + 32], t[PATH_MAX + 64], name[PATH_MAX + 64];
	snprintf(a, sizeof a, "%s/out.cubin", dir);
	snprintf(b, sizeof b, "%s/out.manifest.json", dir);
	CHECK_EQ_INT(sys_tmp_beside(t, sizeof t, a), 0);
	snprintf(name, sizeof name, "%s/.out.cubin.tmp.%ld.", dir, (long)getpid());
	CHECK(!strncmp(t, name, strlen(name)) && strlen(t) == strlen(name) + 6);
	sys_sweep(dir, NULL);                  /* ours, and we are alive: kept */
	CHECK(exists(t));
	/* a dead writer's: a child that exits at once */
	pid_t pid = fork();
	if (pid == 0)
		_exit(0);
	int st;
	waitpid(pid, &st, 0);
	snprintf(name, sizeof name, "%s/.out.cubin.tmp.%ld.abcdef", dir, (long)pid);
	CHECK_EQ_INT(mkdir(name, 0700), 0);
	char inner[PATH_MAX + 96];
	snprintf(inner, sizeof inner, "%s/new", name);
	CHECK_EQ_INT(sys_write_file(inner, "x", 1), 0);
	sys_sweep(dir, "other.cubin");         /* another name's: kept */
	CHECK(exists(name));
	sys_sweep(dir, "out.cubin");
	CHECK(!exists(name) && exists(t));
	CHECK_EQ_INT(sys_rmdir_files(t), 0);

	/* both written, or neither: a directory in the way of the second */
	const char *dst[2] = { a, b };
	const void *data[2] = { "new cubin", "new manifest" };
	size_t len[2] = { 9, 12 };
	int failed = -1;
	CHECK_EQ_INT(sys_write_files(2, dst, data, len, &failed), 0);
	char *x = slurp(a);
	CHECK_STR(x, "new cubin");
	free(x);
	unlink(b);
	CHECK_EQ_INT(mkdir(b, 0700), 0);
	const void *data2[2] = { "newer cubin", "newer manifest" };
	size_t len2[2] = { 11, 14 };
	CHECK_EQ_INT(sys_write_files(2, dst, data2, len2, &failed), -1);
	CHECK_EQ_INT(failed, 1);
	CHECK_EQ_INT(errno, EISDIR);
	x = slurp(a);
	CHECK_STR(x, "new cubin");             /* the old output, intact */
	free(x);
	rmdir(b);
	/* a rename that fails after the first went through: the first is put back */
	const char *tmps[2];
	char t1[PATH_MAX + 64], t2[PATH_MAX + 80], f1[PATH_MAX + 80];
	CHECK_EQ_INT(sys_tmp_beside(t1, sizeof t1, a), 0);
	snprintf(f1, sizeof f1, "%s/new", t1);
	CHECK_EQ_INT(sys_write_file(f1, "third", 5), 0);
	snprintf(t2, sizeof t2, "%s/missing", t1);    /* renaming it fails */
	tmps[0] = f1;
	tmps[1] = t2;
	CHECK_EQ_INT(sys_commit(tmps, dst, 2, &failed), -1);
	CHECK_EQ_INT(failed, 1);
	x = slurp(a);
	CHECK_STR(x, "new cubin");
	free(x);
	CHECK(!exists(b));                     /* it was not there before */
	sys_rmdir_files(t1);
	/* a device is written as it is, never replaced */
	const char *dev[1] = { "/dev/null" };
	CHECK_EQ_INT(sys_write_files(1, dev, data, len, &failed), 0);
	struct stat sn;
	CHECK(stat("/dev/null", &sn) == 0 && S_ISCHR(sn.st_mode));
	CHECK(sys_same_file(a, a) && !sys_same_file(a, dir) && !sys_same_file(a, b));
	unlink(a);
}

static void test_sha256(void)
{
	char h[65];
	sha256_of("", 0, h);
	CHECK_STR(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	sha256_of("abc", 3, h);
	CHECK_STR(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	sha256_of(m, strlen(m), h);
	CHECK_STR(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	Sha256 s;   /* the same bytes added in pieces */
	sha256_init(&s);
	for (const char *p = m; *p; p++)
		sha256_add(&s, p, 1);
	sha256_hex(&s, h);
	CHECK_STR(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");

	/* a million 'a' (FIPS 180-4), whole and in pieces that start and end
	 * at every offset in a block: whole blocks are hashed where they lie */
	enum { MA = 1000000 };
	char *big = malloc(MA);
	CHECK(big != NULL);
	if (!big)
		return;
	memset(big, 'a', MA);
	sha256_of(big, MA, h);
	CHECK_STR(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	static const size_t pieces[] = { 1, 63, 64, 65, 127, 128, 1000, 4097 };
	for (size_t i = 0; i < sizeof pieces / sizeof *pieces; i++) {
		sha256_init(&s);
		for (size_t at = 0, k = pieces[i]; at < MA; at += k, k = k * 7 % 4099 + 1)
			sha256_add(&s, big + at, k < MA - at ? k : MA - at);
		sha256_hex(&s, h);
		CHECK_STR(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	}
	free(big);

	/* a field is "TAG N\n" and the bytes, whatever the tag's length */
	char tag[200], pre[256], f1[65], f2[65];
	memset(tag, 'h', sizeof tag - 1);
	tag[sizeof tag - 1] = 0;
	sha256_init(&s);
	sha256_field(&s, tag, "xyz", 3);
	sha256_hex(&s, f1);
	int k = snprintf(pre, sizeof pre, "%s 3\nxyz", tag);
	sha256_of(pre, (size_t)k, f2);
	CHECK_STR(f1, f2);
}

/* The data directory: PLK_HOME when it holds stdlib/plk.cuh, else found
 * from this binary (build/unit/test_sys, build/san/unit/test_sys: the tree). */
static void test_home(void)
{
	char home[PATH_MAX], tree[PATH_MAX];
	const char *saved = getenv("PLK_HOME");
	CHECK(realpath(".", tree) != NULL);
	unsetenv("PLK_HOME");
	CHECK_EQ_INT(sys_home(home, sizeof home), 0);
	CHECK_STR(home, tree);
	setenv("PLK_HOME", "/nonexistent", 1);
	CHECK_EQ_INT(sys_home(home, sizeof home), -1);
	setenv("PLK_HOME", tree, 1);
	CHECK_EQ_INT(sys_home(home, sizeof home), 0);
	CHECK_STR(home, tree);
	CHECK_EQ_INT(sys_home(home, 16), -1);       /* smaller than realpath's buffer */
	if (saved)
		setenv("PLK_HOME", saved, 1);
	else
		unsetenv("PLK_HOME");
}

int main(void)
{
	const char *td = getenv("TMPDIR");
	char dir[PATH_MAX];
	char pre[PATH_MAX];
	snprintf(pre, sizeof pre, "%s/plk-systest-", td && *td ? td : "/tmp");
	if (sys_tmp_dir(dir, sizeof dir, pre)) {
		perror("sys_tmp_dir");
		return 1;
	}
	test_run();
	test_spawn(dir);
	test_files(dir);
	test_commit(dir);
	test_sha256();
	test_home();
	char *rm[] = { "rm", "-rf", dir, NULL };
	CHECK_EQ_INT(sys_run(rm, NULL), 0);
	UNIT_END();
}

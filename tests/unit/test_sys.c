/* test_sys.c: sys.c (processes, whole files, temporary names) and
 * sha256.c (FIPS 180-4 vectors, length-prefixed fields). */
#include <errno.h>
#include <limits.h>
#include <sys/stat.h>
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
}

static void test_files(const char *dir)
{
	char path[PATH_MAX + 32], sub[PATH_MAX + 32];   /* dir, and a name under it */
	snprintf(path, sizeof path, "%s/f", dir);
	static const char data[] = "one\0two";
	CHECK_EQ_INT(sys_write_file(path, data, sizeof data), 0);
	size_t n = 0;
	char *t = sys_read_file(path, &n);
	CHECK(t && n == sizeof data && !memcmp(t, data, n) && t[n] == 0);
	free(t);
	snprintf(sub, sizeof sub, "%s/none/f", dir);
	CHECK_EQ_INT(sys_write_file(sub, data, 1), -1);
	errno = 0;
	CHECK(!sys_read_file(sub, &n) && errno == ENOENT);
	errno = 0;
	CHECK(!sys_read_file(dir, &n) && errno == EISDIR);

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
	CHECK_EQ_INT(sys_tmp_file(small, sizeof small, sub), -1);
	CHECK_EQ_INT(sys_tmp_dir(small, sizeof small, sub), -1);

	CHECK_EQ_INT(sys_exe_path(path, sizeof path), 0);
	CHECK(strstr(path, "test_sys") != NULL);
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
	test_files(dir);
	test_sha256();
	test_home();
	char *rm[] = { "rm", "-rf", dir, NULL };
	CHECK_EQ_INT(sys_run(rm, NULL), 0);
	UNIT_END();
}

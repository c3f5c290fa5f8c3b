/* replay.h: the REPLAY build's main for a libFuzzer target of this
 * directory (tests/scripts/fuzz_replay.sh): each file on the command line
 * (its first 4 MB) through LLVMFuzzerTestOneInput, then a count. Include
 * it after the target; REPLAY_WHAT names the inputs in the count. */
#ifdef REPLAY
#include <stdint.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	static char buf[4 << 20];
	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		if (!f) {
			perror(argv[i]);
			return 1;
		}
		size_t n = fread(buf, 1, sizeof buf, f);
		fclose(f);
		LLVMFuzzerTestOneInput((const uint8_t *)buf, n);
	}
	printf("replayed %d %s\n", argc - 1, REPLAY_WHAT);
	return 0;
}
#endif

// SPDX-License-Identifier: MIT
/* ibpoold config: a full file, defaults, and every refusal with FILE:LINE. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tu.h"
#include "tools/lib/pool/config.h"

static char path[64];

/* Write text to a fresh temporary file named in path. */
static void write_conf(const char *text)
{
	FILE *f;
	int fd;

	strcpy(path, "/tmp/pconfig-XXXXXX");
	fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	f = fdopen(fd, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs(text, f);
	fclose(f);
}

static void test_full(void)
{
	struct pool_config c;
	char err[512] = "";

	write_conf("; ibpoold\n"
		   "[pool]\n"
		   "socket = /tmp/p.sock\n"
		   "state_dir = /tmp/state\n"
		   "sm_socket = /tmp/sm.sock\n"
		   "sm_owner = pool-b\n"
		   "telemetry_interval_ms = 250\n"
		   "lft_check_s = 0\n"
		   "socket_mode = 0666\n"
		   "group = root\n"
		   "lease_default_s = 600\n"
		   "max_lease_s = 7200\n"
		   "max_gpus_per_uid = 16\n"
		   "tcp = 0.0.0.0:7070\n"
		   "\n"
		   "[host GPU01]\n"
		   "gpus = 8\n"
		   "gpu_type = H100\n"
		   "hca = 0x0002c90300000001, 0x0002C90300000003,0x5,0x7\n"
		   "[host gpu02]\n"
		   "gpus = 2\n"
		   "gpu_type = A100 80GB\n"
		   "hca = gpu02 mlx5_0\n");
	CU_ASSERT_EQUAL_FATAL(pool_config_load(path, &c, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(c.socket, "/tmp/p.sock");
	CU_ASSERT_STRING_EQUAL(c.state_dir, "/tmp/state");
	CU_ASSERT_STRING_EQUAL(c.sm_socket, "/tmp/sm.sock");
	CU_ASSERT_STRING_EQUAL(c.sm_owner, "pool-b");
	CU_ASSERT_EQUAL(c.telemetry_interval_ms, 250);
	CU_ASSERT_EQUAL(c.lft_check_s, 0);
	CU_ASSERT_EQUAL(c.socket_mode, 0666);
	CU_ASSERT_EQUAL(c.lease_default_s, 600);
	CU_ASSERT_EQUAL(c.max_lease_s, 7200);
	CU_ASSERT_EQUAL(c.max_gpus_per_uid, 16);
	CU_ASSERT_STRING_EQUAL(c.group, "root");
	CU_ASSERT_EQUAL(c.gid, 0);
	CU_ASSERT_STRING_EQUAL(c.tcp, "0.0.0.0:7070");
	CU_ASSERT(!c.tcp_loopback);
	CU_ASSERT_EQUAL_FATAL(c.nhosts, 2);
	/* iniparser lower-cases section names */
	CU_ASSERT_STRING_EQUAL(c.hosts[0].name, "gpu01");
	CU_ASSERT_EQUAL(c.hosts[0].gpus, 8);
	CU_ASSERT_STRING_EQUAL(c.hosts[0].gpu_type, "H100");
	CU_ASSERT_EQUAL_FATAL(c.hosts[0].nhca, 4);
	CU_ASSERT_EQUAL(c.hosts[0].hca[0].guid, 0x0002c90300000001ULL);
	CU_ASSERT_EQUAL(c.hosts[0].hca[1].guid, 0x0002c90300000003ULL);
	CU_ASSERT_EQUAL(c.hosts[0].hca[3].guid, 7);
	CU_ASSERT_PTR_NULL(c.hosts[0].hca[0].desc);
	/* 8 GPUs on 4 rails: two per HCA */
	CU_ASSERT_EQUAL(pool_gpu_rail(&c.hosts[0], 0), 0);
	CU_ASSERT_EQUAL(pool_gpu_rail(&c.hosts[0], 1), 0);
	CU_ASSERT_EQUAL(pool_gpu_rail(&c.hosts[0], 2), 1);
	CU_ASSERT_EQUAL(pool_gpu_rail(&c.hosts[0], 7), 3);
	CU_ASSERT_STRING_EQUAL(c.hosts[1].gpu_type, "A100 80GB");
	CU_ASSERT_EQUAL_FATAL(c.hosts[1].nhca, 1);
	CU_ASSERT_EQUAL(c.hosts[1].hca[0].guid, 0);
	CU_ASSERT_STRING_EQUAL(c.hosts[1].hca[0].desc, "gpu02 mlx5_0");
	pool_config_release(&c);
	unlink(path);
}

static void test_defaults(void)
{
	struct pool_config c;
	char err[512] = "";

	write_conf("[host a]\ngpus=1\ngpu_type=x\nhca=0x1\n");
	CU_ASSERT_EQUAL_FATAL(pool_config_load(path, &c, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(c.socket, POOL_CFG_SOCKET);
	CU_ASSERT_STRING_EQUAL(c.state_dir, POOL_CFG_STATE_DIR);
	CU_ASSERT_STRING_EQUAL(c.sm_socket, POOL_CFG_SM_SOCKET);
	CU_ASSERT_STRING_EQUAL(c.sm_owner, "ibpoold");
	CU_ASSERT_EQUAL(c.telemetry_interval_ms, POOL_CFG_TELEMETRY_MS);
	CU_ASSERT_EQUAL(c.lft_check_s, 60);
	CU_ASSERT_EQUAL(c.socket_mode, 0660);
	CU_ASSERT_EQUAL(c.lease_default_s, POOL_CFG_LEASE_S);
	/* no caps unless asked for */
	CU_ASSERT_EQUAL(c.max_lease_s, POOL_CFG_LEASE_MAX);
	CU_ASSERT_EQUAL(c.max_gpus_per_uid, 0);
	CU_ASSERT_PTR_NULL(c.group);
	/* no TCP unless asked for */
	CU_ASSERT_PTR_NULL(c.tcp);
	pool_config_release(&c);
	unlink(path);
}

/* [sched]: every key taken, the defaults without it. */
static void test_sched(void)
{
	struct pool_config c;
	char err[512] = "";

	write_conf("[sched]\npolicy = priority\npreempt = yes\ngrace_s = 5\n"
		   "starve_s = 600\nclasses = be, burstable,ls\n"
		   "default_class = burstable\nclass_weight = 2.5\n"
		   "class_weights = 0, 5,20\nrestart_s = 90\n"
		   "quota = ml:16,web:0,db:4\nlending_limit = ml:8\n"
		   "borrowing_limit = web:2, db:0\n"
		   "[host a]\ngpus=1\ngpu_type=x\nhca=0x1\n");
	CU_ASSERT_EQUAL_FATAL(pool_config_load(path, &c, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(c.sched.policy, SCH_PRIORITY);
	CU_ASSERT_TRUE(c.sched.preempt);
	CU_ASSERT_EQUAL(c.sched.grace_s, 5);
	CU_ASSERT_EQUAL(c.sched.starve_s, 600);
	CU_ASSERT_EQUAL_FATAL(c.sched.nclasses, 3);
	CU_ASSERT_STRING_EQUAL(c.sched.classes[1], "burstable");
	CU_ASSERT_STRING_EQUAL(c.sched.classes[2], "ls");
	CU_ASSERT_EQUAL(c.sched.default_class, 1);
	CU_ASSERT_DOUBLE_EQUAL(c.sched.class_weight, 2.5, 1e-12);
	CU_ASSERT_EQUAL_FATAL(c.sched.nclass_weights, 3);
	CU_ASSERT_DOUBLE_EQUAL(c.sched.class_weights[1], 5, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(c.sched.class_weights[2], 20, 1e-12);
	CU_ASSERT_EQUAL(c.sched.restart_s, 90);
	CU_ASSERT_EQUAL_FATAL(c.sched.ngroups, 3);
	CU_ASSERT_STRING_EQUAL(c.sched.groups[0], "ml");
	CU_ASSERT_EQUAL(c.sched.quota[0], 16);
	CU_ASSERT_EQUAL(c.sched.quota[1], 0);
	CU_ASSERT_EQUAL(c.sched.quota[2], 4);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c.sched.borrow);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c.sched.lend);
	CU_ASSERT_EQUAL(c.sched.borrow[0], POOL_CFG_NO_LIMIT);
	CU_ASSERT_EQUAL(c.sched.borrow[1], 2);
	CU_ASSERT_EQUAL(c.sched.borrow[2], 0);
	CU_ASSERT_EQUAL(c.sched.lend[0], 8);
	CU_ASSERT_EQUAL(c.sched.lend[1], POOL_CFG_NO_LIMIT);
	pool_config_release(&c);

	write_conf("[host a]\ngpus=1\ngpu_type=x\nhca=0x1\n");
	CU_ASSERT_EQUAL_FATAL(pool_config_load(path, &c, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(c.sched.policy, SCH_FIFO);
	CU_ASSERT_FALSE(c.sched.preempt);
	CU_ASSERT_EQUAL(c.sched.grace_s, POOL_CFG_GRACE_S);
	CU_ASSERT_EQUAL(c.sched.nclasses, 0);
	CU_ASSERT_EQUAL(c.sched.ngroups, 0);
	CU_ASSERT_PTR_NULL(c.sched.borrow);
	CU_ASSERT_PTR_NULL(c.sched.lend);
	CU_ASSERT_TRUE(c.sched.class_weight < 0);
	CU_ASSERT_EQUAL(c.sched.nclass_weights, 0);
	CU_ASSERT_EQUAL(c.sched.restart_s, POOL_CFG_RESTART_S);
	pool_config_release(&c);
	unlink(path);
}

/* text is refused with ret, and err is "PATH:" followed by want. */
static void refused(const char *text, int ret, const char *want)
{
	struct pool_config c;
	char err[512] = "", full[600];

	write_conf(text);
	CU_ASSERT_EQUAL(pool_config_load(path, &c, err, sizeof(err)), ret);
	snprintf(full, sizeof(full), "%s:%s", path, want);
	if (strcmp(err, full))
		fprintf(stderr, "\nwant %s\n got %s\n", full, err);
	CU_ASSERT_STRING_EQUAL(err, full);
	CU_ASSERT_PTR_NULL(c.hosts);
	CU_ASSERT_PTR_NULL(c.socket);
	unlink(path);
}

#define HOST "[host a]\ngpus=1\ngpu_type=x\nhca=0x1\n"

static void test_refusals(void)
{
	refused(HOST "[pools]\nx=1\n", -EINVAL,
		"5: [pools]: unknown section (expected [pool], [sched] or [host NAME])");
	refused("[pool]\nsockets = /x\n" HOST, -EINVAL,
		"2: [pool] sockets: unknown key");
	refused("[pool]\nsocket_mode = 0777\n" HOST, -EINVAL,
		"2: [pool] socket_mode: '0777' is not 0600, 0660 or 0666");
	refused("[pool]\nsm_owner = pool b\n" HOST, -EINVAL,
		"2: [pool] sm_owner: 'pool b' is not 1..64 of A-Z a-z 0-9 . _ : -");
	refused(HOST "color = red\n", -EINVAL,
		"5: [host a] color: unknown key");
	refused("top = 1\n" HOST, -EINVAL,
		"1: [] top: key outside any section");
	refused("[host a]\ngpus=1\nhca=0x1\n", -EINVAL,
		"1: [host a] gpu_type: required key missing");
	refused("[host a]\ngpu_type=x\nhca=0x1\n", -EINVAL,
		"1: [host a] gpus: required key missing");
	refused("[host a]\ngpus=65\ngpu_type=x\nhca=0x1\n", -EINVAL,
		"2: [host a] gpus: '65' is not a GPU count in 1..64");
	refused("[host a]\ngpus=0\ngpu_type=x\nhca=0x1\n", -EINVAL,
		"2: [host a] gpus: '0' is not a GPU count in 1..64");
	refused("[host a]\ngpus=4x\ngpu_type=x\nhca=0x1\n", -EINVAL,
		"2: [host a] gpus: '4x' is not a GPU count in 1..64");
	refused("[pool]\n\ntelemetry_interval_ms = 5\n" HOST, -EINVAL,
		"3: [pool] telemetry_interval_ms: '5' is not a number of milliseconds in 10..600000");
	refused("[pool]\nlft_check_s = 86401\n" HOST, -EINVAL,
		"2: [pool] lft_check_s: '86401' is not 0 (off) or a number of seconds in 1..86400");
	refused("[pool]\nlft_check_s = 1m\n" HOST, -EINVAL,
		"2: [pool] lft_check_s: '1m' is not 0 (off) or a number of seconds in 1..86400");
	refused("[pool]\nlease_default_s = -1\n" HOST, -EINVAL,
		"2: [pool] lease_default_s: '-1' is not a number of seconds in 1..2592000");
	refused("[pool]\nmax_lease_s = 0\n" HOST, -EINVAL,
		"2: [pool] max_lease_s: '0' is not a number of seconds in 1..2592000");
	refused("[pool]\nmax_gpus_per_uid = x\n" HOST, -EINVAL,
		"2: [pool] max_gpus_per_uid: 'x' is not 0 (no cap) or a number of GPUs in 1..1048576");
	/* the default lease beyond the cap: which key, in the file's order */
	refused("[pool]\nmax_lease_s = 60\nlease_default_s = 600\n" HOST,
		-EINVAL,
		"3: [pool] lease_default_s: 600 s is longer than max_lease_s (60 s)");
	refused("[pool]\nmax_lease_s = 60\n" HOST, -EINVAL,
		"2: [pool] max_lease_s: 60 s is shorter than lease_default_s (3600 s by default)");
	refused("[pool]\ngroup = no-such-group-gpuaware\n" HOST, -ENOENT,
		"2: [pool] group: unknown group 'no-such-group-gpuaware'");
	refused("[pool]\nsocket = relative.sock\n" HOST, -EINVAL,
		"2: [pool] socket: 'relative.sock' is not an absolute path");
	refused("[pool]\n", -EINVAL, "1: no [host NAME] section");
	refused("[host a]\ngpus=1\ngpu_type=x\nhca=0x1,,0x2\n", -EINVAL,
		"4: [host a] hca: entry 2 '' is neither a port GUID 0x1..0xffffffffffffffff nor a node description");
	refused("[host a]\ngpus=1\ngpu_type=x\nhca=0x12345678901234567\n",
		-EINVAL,
		"4: [host a] hca: entry 1 '0x12345678901234567' is neither a port GUID 0x1..0xffffffffffffffff nor a node description");
	refused("[host a]\ngpus=1\ngpu_type=x\nhca=0x0\n", -EINVAL,
		"4: [host a] hca: entry 1 '0x0' is neither a port GUID 0x1..0xffffffffffffffff nor a node description");
	refused(HOST "[host b]\ngpus=1\ngpu_type=x\n\nhca = 0x2, 0x01\n",
		-EEXIST,
		"9: [host b] hca: port GUID 0x0000000000000001 already given for host a");
	refused("[host a]\ngpus=1\ngpu_type=x\nhca=a mlx5_0,a mlx5_0\n",
		-EEXIST,
		"4: [host a] hca: node description 'a mlx5_0' already given for host a");
	refused("[host]\ngpus=1\ngpu_type=x\nhca=0x1\n", -EINVAL,
		"1: [host]: expected [host NAME] with a host name of letters, digits, '.', '-', '_'");
	refused("[host a/b]\ngpus=1\ngpu_type=x\nhca=0x1\n", -EINVAL,
		"1: [host a/b]: expected [host NAME] with a host name of letters, digits, '.', '-', '_'");
	refused("[host a]\ngpus=1\ngpu_type=\nhca=0x1\n", -EINVAL,
		"3: [host a] gpu_type: empty");
	/* iniparser would merge these silently */
	refused(HOST "[host A]\ngpus=2\n", -EINVAL,
		"5: [host a]: repeated (first at line 1)");
	refused("[host a]\ngpus=1\ngpu_type=x\nGPUS = 2\nhca=0x1\n", -EINVAL,
		"4: [host a] gpus: repeated (first at line 2)");
}

/* tcp = v loads, and reaches this host only or not. */
static void tcp_loads(const char *v, bool loopback)
{
	struct pool_config c;
	char err[512] = "", text[256];

	snprintf(text, sizeof(text),
		 "[pool]\ntcp = %s\n" HOST, v);
	write_conf(text);
	CU_ASSERT_EQUAL_FATAL(pool_config_load(path, &c, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(c.tcp, v);
	CU_ASSERT_EQUAL(c.tcp_loopback, loopback);
	pool_config_release(&c);
	unlink(path);
}

static void test_sched_refusals(void)
{
	static const char host[] = "[host a]\ngpus=1\ngpu_type=x\nhca=0x1\n";
	static const struct {
		const char *line, *want;
	} bad[] = {
		{ "policy = sjf", "2: [sched] policy: 'sjf' is not fifo, priority, easy, predicted, tiresias, bestfit, fgd, fgdcpu, fgdfill or srpt" },
		{ "preempt = maybe", "2: [sched] preempt: 'maybe' is not yes or no" },
		{ "grace_s = -1", "2: [sched] grace_s: '-1' is not a number of seconds in 0..2592000" },
		{ "classes = a,b,c,d,e", "2: [sched] classes: 'a,b,c,d,e' is not 1..4 names of letters, digits, '.', '-', '_', lowest first" },
		{ "classes = a,,b", "2: [sched] classes: 'a,,b' is not 1..4 names of letters, digits, '.', '-', '_', lowest first" },
		{ "default_class = x", "2: [sched] default_class: 'x' is not one of the classes" },
		{ "quota = ml", "2: [sched] quota: 'ml' is not GROUP:GPUS[,GROUP:GPUS...], each group once (at most 64 groups)" },
		{ "quota = ml:4,ml:8", "2: [sched] quota: 'ml:4,ml:8' is not GROUP:GPUS[,GROUP:GPUS...], each group once (at most 64 groups)" },
		{ "lending_limit = ml:1", "2: [sched] lending_limit: 'ml:1' is not GROUP:GPUS[,GROUP:GPUS...] of the quota's groups, each once" },
		{ "quota = ml:4\nborrowing_limit = ml:x", "3: [sched] borrowing_limit: 'ml:x' is not GROUP:GPUS[,GROUP:GPUS...] of the quota's groups, each once" },
		{ "quota = ml:4\nlending_limit = ml:5", "3: [sched] lending_limit: group ml lends 5 GPUs of a quota of 4" },
		{ "quota = ml:4\nlending_limit = ml:1,ml:2", "3: [sched] lending_limit: 'ml:1,ml:2' is not GROUP:GPUS[,GROUP:GPUS...] of the quota's groups, each once" },
		{ "class_weight = x", "2: [sched] class_weight: 'x' is not a number >= 0" },
		{ "class_weights = 1,-2", "2: [sched] class_weights: '1,-2' is not 1..4 numbers >= 0, lowest class first" },
		{ "class_weights = 1,2", "2: [sched] class_weights: 2 weights for 1 classes" },
		{ "restart_s = x", "2: [sched] restart_s: 'x' is not a number of seconds in 0..2592000" },
		{ "colour = red", "2: [sched] colour: unknown key" },
	};
	char text[256];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "[sched]\n%s\n%s", bad[i].line,
			 host);
		refused(text, -EINVAL, bad[i].want);
	}
}

static void test_tcp(void)
{
	static const char *const bad[] = {
		"localhost:7070", "65536", "::1:7070", "", "[::1]", "1.2.3.4:",
	};
	char text[256], want[256];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "[pool]\nsocket = /x\ntcp = %s\n"
			 HOST, bad[i]);
		snprintf(want, sizeof(want), "3: [pool] tcp: '%s' is not [ADDR:]PORT (ADDR numeric IPv4 or [IPv6], 127.0.0.1 when left out; PORT 0..65535)",
			 bad[i]);
		refused(text, -EINVAL, want);
	}
	tcp_loads("7070", true);
	tcp_loads("0", true);
	tcp_loads("127.0.0.1:7070", true);
	tcp_loads("[::1]:7070", true);
	tcp_loads("10.0.0.5:7070", false);
	tcp_loads("[::]:7070", false);
}

/*
 * sm_socket: a master and standbys, paths and tcp:HOST:PORT, in order;
 * one that is neither, too many, or none refused; munge_socket a path.
 */
static void test_sms(void)
{
	struct pool_config c;
	char err[512] = "", text[512];
	size_t i;

	write_conf("[pool]\nsm_socket = tcp:sm01:7071, tcp:10.0.0.2:7071 /run/sm.sock,tcp:7071\nmunge_socket = /run/m/munge.sock\n" HOST);
	CU_ASSERT_EQUAL_FATAL(pool_config_load(path, &c, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(c.nsms, 4);
	CU_ASSERT_STRING_EQUAL(c.sms[0], "tcp:sm01:7071");
	CU_ASSERT_STRING_EQUAL(c.sms[1], "tcp:10.0.0.2:7071");
	CU_ASSERT_STRING_EQUAL(c.sms[2], "/run/sm.sock");
	CU_ASSERT_STRING_EQUAL(c.sms[3], "tcp:7071");
	CU_ASSERT_STRING_EQUAL(c.munge_socket, "/run/m/munge.sock");
	pool_config_release(&c);
	unlink(path);
	/* the default: one, the local plugin's; munged's own socket */
	write_conf(HOST);
	CU_ASSERT_EQUAL_FATAL(pool_config_load(path, &c, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(c.nsms, 1);
	CU_ASSERT_STRING_EQUAL(c.sms[0], POOL_CFG_SM_SOCKET);
	CU_ASSERT_PTR_NULL(c.munge_socket);
	pool_config_release(&c);
	unlink(path);
	refused("[pool]\nsm_socket = /a.sock, sm.sock\n" HOST, -EINVAL,
		"2: [pool] sm_socket: 'sm.sock' is neither an absolute path nor tcp:HOST:PORT");
	refused("[pool]\nsm_socket = tcp:sm01\n" HOST, -EINVAL,
		"2: [pool] sm_socket: 'tcp:sm01' is neither an absolute path nor tcp:HOST:PORT");
	refused("[pool]\nsm_socket = tcp:sm01:70000\n" HOST, -EINVAL,
		"2: [pool] sm_socket: 'tcp:sm01:70000' is neither an absolute path nor tcp:HOST:PORT");
	refused("[pool]\nsm_socket = ,\n" HOST, -EINVAL,
		"2: [pool] sm_socket: no SM endpoint");
	strcpy(text, "[pool]\nsm_socket =");
	for (i = 0; i <= POOL_CFG_SMS_MAX; i++)
		snprintf(text + strlen(text), sizeof(text) - strlen(text),
			 " /s%zu", i);
	snprintf(text + strlen(text), sizeof(text) - strlen(text), "\n%s",
		 HOST);
	refused(text, -EINVAL, "2: [pool] sm_socket: more than 8 SM endpoints");
	refused("[pool]\nmunge_socket = munge.sock\n" HOST, -EINVAL,
		"2: [pool] munge_socket: 'munge.sock' is not an absolute path");
}

static void test_unreadable(void)
{
	struct pool_config c;
	char err[512] = "";

	CU_ASSERT_EQUAL(pool_config_load("/nonexistent/ibpoold.conf", &c, err,
					 sizeof(err)), -ENOENT);
	CU_ASSERT_STRING_EQUAL(err,
			       "/nonexistent/ibpoold.conf:0: No such file or directory");
	CU_ASSERT_EQUAL(pool_config_load("/tmp", &c, err, sizeof(err)),
			-EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "/tmp:0: not a regular file");
}

TU_SUITE(pool_config,
	 { "full file", test_full },
	 { "defaults", test_defaults },
	 { "refusals", test_refusals },
	 { "[sched]", test_sched },
	 { "[sched] refusals", test_sched_refusals },
	 { "tcp", test_tcp },
	 { "SM endpoints, munged", test_sms },
	 { "unreadable", test_unreadable })

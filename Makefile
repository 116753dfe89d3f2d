# SPDX-License-Identifier: MIT
# gpuaware: routing core, OpenSM plugin, tools and tests from one Makefile.

PREFIX ?= /usr/local
DESTDIR ?=
# The system's library directory: Debian's multiarch one, else the one
# holding libopensm (/usr/lib64 on RHEL and SLES).
LIBDIR ?= $(shell dpkg-architecture -qDEB_HOST_MULTIARCH >/dev/null 2>&1 && \
	echo /usr/lib/$$(dpkg-architecture -qDEB_HOST_MULTIARCH) || \
	ldconfig -p 2>/dev/null | awk '/libopensm\.so\./ { \
		sub("/[^/]*$$", "", $$NF); print $$NF; exit }' | grep . || \
	echo $(PREFIX)/lib)
BINDIR ?= $(PREFIX)/bin
SYSCONFDIR ?= /etc
MANDIR ?= $(PREFIX)/share/man
UNITDIR ?= $(PREFIX)/lib/systemd/system
HOOKDIR ?= $(PREFIX)/lib/gpuaware/slurm
# The Prometheus alert rules (tools/pkg/gpuaware-alerts.yml).
ALERTDIR ?= $(PREFIX)/share/gpuaware/prometheus
HOOKS := notify.sh prolog-slurmctld.sh epilog-slurmctld.sh
# Every program's man page and systemd unit sits in docs/ (each
# program's sample config beside its code); install takes them all.
MANPAGES := $(wildcard docs/*.[1-8])
UNITS := $(wildcard docs/*.service)
mansec = $(subst .,,$(suffix $(1)))

CC ?= cc
FUZZ_CC ?= clang
B ?= build
SANITIZER ?=
# The OpenSM the plugin is built for: the system's headers, or those of
# the OpenSM installed under OSM_PREFIX, whose plugin is built in
# $(B)/<the prefix's last component>/ so builds for several versions sit
# side by side (OSM_PREFIX=/opt/opensm-3.3.24: build/opensm-3.3.24/).
OSM_PREFIX ?=
ifeq ($(OSM_PREFIX),)
OSM_INC := /usr/include/infiniband
PB := $(B)
else
OSM_INC := $(OSM_PREFIX)/include/infiniband
PB := $(B)/$(notdir $(OSM_PREFIX))
endif
# The releases the plugin is also built and tested for, each from
# OSM_SOURCES by tools/build-opensm.sh, once (make matrix); without the
# sources there is nothing to build and make check says it skipped them.
OSM_MATRIX ?= 3.3.24 master
export OSM_MATRIX
# Where that OpenSM's dlopen("libgpuaware.so") finds the plugin: the
# system's library directory, or the library directory under OSM_PREFIX,
# which its opensm has as run path.
ifeq ($(OSM_PREFIX),)
PLUGINDIR ?= $(LIBDIR)
else
PLUGINDIR ?= $(OSM_PREFIX)/lib
endif

WARN := -Wall -Wextra -Werror -Wmissing-prototypes -Wformat=2 -Wshadow \
	-Wstrict-prototypes -Wwrite-strings
CFLAGS ?= -O2 -g
CFLAGS += -std=c11 -D_GNU_SOURCE -fPIC $(WARN) -MMD -MP
CPPFLAGS += -I.
# The project's one version: every tool's --version prints it.
VERSION := 0.1.0
CPPFLAGS += -DGPUAWARE_VERSION='"$(VERSION)"'
LDLIBS_CORE := -lm
# sm/'s server and client speak MUNGE over TCP (its replay cache hashes
# with nettle): whatever links them.
LDLIBS_SM := -lmunge -lnettle
ifneq ($(SANITIZER),)
CFLAGS += -fsanitize=$(SANITIZER) -fno-sanitize-recover=all -fno-omit-frame-pointer
LDFLAGS += -fsanitize=$(SANITIZER)
endif

CORE_SRC := $(wildcard topology/*.c routing/*.c routing/*/*.c sm/*.c)
PLUGIN_SRC := $(wildcard plugins/opensm/*.c)
LIVEFAB_SRC := $(wildcard tools/lib/livefab/*.c)
CLI_SRC := $(wildcard tools/lib/cli/*.c)
POOLROUTE_SRC := $(wildcard tools/ibpoolroute/*.c)
TOPOGEN_SRC := $(wildcard tools/ibtopogen/*.c)
POOL_SRC := $(wildcard tools/lib/pool/*.c)
POOLD_SRC := $(filter-out tools/ibpoold/main.c,$(wildcard tools/ibpoold/*.c))
# The unit tests also check the all-to-all bound the bench prints.
UNIT_SRC := $(wildcard tests/unit/*.c) tests/bench/a2abound.c

obj = $(patsubst %.c,$(B)/obj/%.o,$(1))
CORE_OBJ := $(call obj,$(CORE_SRC))
PLUGIN_OBJ := $(patsubst %.c,$(PB)/obj/%.o,$(PLUGIN_SRC))

PROGS := $(PB)/libgpuaware.so $(B)/ibpoolroute $(B)/ibtopogen $(B)/ibpoold

.PHONY: all plugin matrix check check-sanitize check-unit check-ibsim demo \
	bench install uninstall clean deps deps-test deps-demo deb rpm headers fuzz fuzz-smoke FORCE

all: $(PROGS) $(B)/rmppsim.so $(B)/issmhold $(B)/lfdump

# Rebuild everything when the flags change.
$(B)/.flags: FORCE
	@mkdir -p $(B)
	@echo '$(CC) $(CFLAGS) $(CPPFLAGS) $(LDFLAGS)' | cmp -s - $@ || \
		echo '$(CC) $(CFLAGS) $(CPPFLAGS) $(LDFLAGS)' > $@

$(B)/obj/%.o: %.c $(B)/.flags
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

# The plugin's objects, with that OpenSM's headers; rebuilt for others.
# osm_config.h comes first in every one: without its ENABLE_OSM_PERF_MGR
# osm_subn_opt_t is 56 bytes short and every later osm_subn_t field is
# read at the wrong offset.
$(PB)/.osm-inc: FORCE
	@mkdir -p $(PB)
	@echo '$(OSM_INC)' | cmp -s - $@ || echo '$(OSM_INC)' > $@

$(PB)/obj/plugins/opensm/%.o: plugins/opensm/%.c $(B)/.flags $(PB)/.osm-inc
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -I$(OSM_INC) -include opensm/osm_config.h $(CFLAGS) \
		-c -o $@ $<

$(B)/libgpcore.a: $(CORE_OBJ)
	rm -f $@
	ar rcs $@ $^

# The pool library: the pool's state and journal, its config, the
# fabric's view, placement and its model, exports and hostlists.  It
# links without the daemon (tests/link/pool-only.c proves it).
$(B)/libgppool.a: $(call obj,$(POOL_SRC))
	rm -f $@
	ar rcs $@ $^

# ibpoold's own modules, without its main, so unit tests link them too.
$(B)/libpoold.a: $(call obj,$(POOLD_SRC))
	rm -f $@
	ar rcs $@ $^

# The command-line conventions the three tools share.
$(B)/libgpcli.a: $(call obj,$(CLI_SRC))
	rm -f $@
	ar rcs $@ $^

# The live-fabric reader the tools share; it links libibnetdisc and libibmad.
$(B)/liblivefab.a: $(call obj,$(LIVEFAB_SRC))
	rm -f $@
	ar rcs $@ $^

# The plugin's OpenSM symbols resolve against the opensm binary at load time.
# Its SONAME is the name OpenSM dlopen()s: ldconfig's cache lists it.
$(PB)/libgpuaware.so: $(PLUGIN_OBJ) $(B)/libgpcore.a plugins/opensm/plugin.map
	$(CC) -shared $(LDFLAGS) -Wl,-soname,libgpuaware.so \
		-Wl,--version-script=plugins/opensm/plugin.map \
		-o $@ $(PLUGIN_OBJ) $(B)/libgpcore.a -liniparser \
		-ljson-c $(LDLIBS_SM) -lpthread $(LDLIBS_CORE)

plugin: $(PB)/libgpuaware.so

matrix: $(B)/libgpcore.a
	@for v in $(OSM_MATRIX); do \
		p=$$(tools/build-opensm.sh $$v); rc=$$?; \
		[ $$rc -eq 2 ] && continue; [ $$rc -eq 0 ] || exit 1; \
		$(MAKE) --no-print-directory OSM_PREFIX=$$p plugin || exit 1; \
	done

$(B)/ibpoolroute: $(call obj,$(POOLROUTE_SRC)) $(B)/libgppool.a \
		$(B)/liblivefab.a $(B)/libgpcli.a $(B)/libgpcore.a
	$(CC) $(LDFLAGS) -o $@ $^ -libnetdisc -libmad -libumad -ljson-c \
		$(LDLIBS_SM) $(LDLIBS_CORE)

$(B)/ibpoold: $(call obj,tools/ibpoold/main.c) $(B)/libpoold.a \
		$(B)/libgppool.a $(B)/liblivefab.a $(B)/libgpcli.a $(B)/libgpcore.a
	$(CC) $(LDFLAGS) -o $@ $^ -libnetdisc -libmad -libumad -libverbs \
		-liniparser -ljson-c $(LDLIBS_SM) -lpthread $(LDLIBS_CORE)

$(B)/ibtopogen: $(call obj,$(TOPOGEN_SRC)) $(B)/libgpcli.a $(B)/libgpcore.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS_CORE)

# The plugin's hint socket and config have no OpenSM types: tested here.
UNIT_PLUGIN := $(call obj,plugins/opensm/gahints.c plugins/opensm/gaconfig.c)

# fdatasync is wrapped so the journal tests can make it fail.
$(B)/unit-tests: $(call obj,$(UNIT_SRC)) $(UNIT_PLUGIN) $(B)/libpoold.a \
		$(B)/libgppool.a $(B)/liblivefab.a $(B)/libgpcli.a $(B)/libgpcore.a
	$(CC) $(LDFLAGS) -Wl,--wrap=fdatasync -o $@ $^ -lcunit -liniparser \
		-ljson-c -libnetdisc -libmad -libumad $(LDLIBS_SM) -lpthread \
		$(LDLIBS_CORE)

# The pool library alone, with its link map (tests/link/t-pool-link.sh):
# proof that a program calling pool_new() needs none of the daemon.
$(B)/pool-only: $(call obj,tests/link/pool-only.c) $(B)/libgppool.a \
		$(B)/libgpcore.a
	$(CC) $(LDFLAGS) -Wl,-Map=$@.map -o $@ $^ -liniparser -ljson-c \
		$(LDLIBS_CORE)

# ibpoold's load generator for tests/bench/poold.sh; built by check so it
# stays compilable.
$(B)/poold-load: $(call obj,tests/bench/poold-load.c topology/monotime.c)
	$(CC) $(LDFLAGS) -o $@ $^ -lpthread

# Requests as clients send them, over the Unix socket, TCP and TCP with
# MUNGE, for tests/bench/munge.sh; built by check too.
$(B)/auth-load: $(call obj,tests/bench/auth-load.c) $(B)/libgpcore.a
	$(CC) $(LDFLAGS) -o $@ $^ -ljson-c $(LDLIBS_SM) -lpthread

# The hint table's cost per hints.add at 4,096 jobs, for
# docs/benchmarks.md; built by check too.
$(B)/hints-add: $(call obj,tests/bench/hints-add.c) $(B)/libgpcore.a
	$(CC) $(LDFLAGS) -o $@ $^ -ljson-c $(LDLIBS_SM) -lpthread

# Test-only: the kernel's RMPP and send timeouts between umad2sim and its
# clients, so SA GetTable answers cross ibsim whole and an unanswered
# request comes back.  Never sanitized: OpenSM, not instrumented,
# preloads it.
$(B)/rmppsim.so: tests/ibsim/rmppsim.c topology/monotime.c $(B)/.flags
	$(CC) $(CPPFLAGS) -std=c11 -D_GNU_SOURCE -fPIC $(WARN) -O2 -g -shared \
		-o $@ $(filter %.c,$^) -ldl -lpthread

# Test-only: an SM port that answers nothing (t-sm-timeout.sh).
$(B)/issmhold: tests/ibsim/issmhold.c $(B)/.flags
	$(CC) $(CPPFLAGS) -std=c11 -D_GNU_SOURCE $(WARN) -O2 -g -o $@ $<

# Test-only: the live LFTs and SL2VL tables as livefab reads them
# (t-verify-smp.sh).
$(B)/lfdump: $(call obj,tests/ibsim/lfdump.c) $(B)/liblivefab.a \
		$(B)/libgpcore.a
	$(CC) $(LDFLAGS) -o $@ $^ -libnetdisc -libmad -libumad -lm

# The all-to-all bound beside every fat-tree row of make bench.
$(B)/a2a-bound: $(call obj,tests/bench/a2a-bound.c tests/bench/a2abound.c) \
		$(B)/libgpcore.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS_CORE)

# The bound beside the Alibaba packing rows of tests/bench/sched.sh.
$(B)/frag-bound: $(call obj,tests/bench/frag-bound.c) $(B)/libgppool.a \
		$(B)/libgpcore.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS_CORE)

# The fuzz targets' sources, instrumented for libFuzzer in their own tree:
# the protocol parser with the hint table's validation, and ibpoold's
# request handling (all of it but the live fabric reader).
FUZZ_SAN := -fsanitize=fuzzer-no-link,address,undefined \
	-fno-sanitize-recover=all
FUZZ_PROTO_SRC := tests/fuzz/fuzz_proto.c sm/proto.c sm/hints.c sm/durable.c
FUZZ_POOL_SRC := tests/fuzz/fuzz_pool.c $(CORE_SRC) $(POOLD_SRC) \
	$(filter-out tools/lib/pool/live.c,$(POOL_SRC))

fuzzobj = $(patsubst %.c,$(B)/fuzz-obj/%.o,$(1))

$(B)/fuzz-obj/%.o: %.c $(B)/.flags
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) -std=c11 -D_GNU_SOURCE $(WARN) -g -O1 -MMD -MP \
		$(FUZZ_SAN) -c -o $@ $<

$(B)/fuzz-proto: $(call fuzzobj,$(FUZZ_PROTO_SRC))
	$(FUZZ_CC) -fsanitize=fuzzer,address,undefined -o $@ $^ -ljson-c \
		-lpthread

$(B)/fuzz-pool: $(call fuzzobj,$(FUZZ_POOL_SRC))
	$(FUZZ_CC) -fsanitize=fuzzer,address,undefined -o $@ $^ -liniparser \
		-ljson-c $(LDLIBS_SM) -lpthread $(LDLIBS_CORE)

fuzz: $(B)/fuzz-proto $(B)/fuzz-pool

# New inputs go to $(B)/fuzz-corpus*; the committed seeds stay as they
# are.  A pool request sets up a daemon three times: fewer runs.
fuzz-smoke: $(B)/fuzz-proto $(B)/fuzz-pool
	@mkdir -p $(B)/fuzz-corpus $(B)/fuzz-corpus-pool
	$(B)/fuzz-proto -runs=200000 -max_len=65536 $(B)/fuzz-corpus \
		tests/fuzz/corpus/proto
	$(B)/fuzz-pool -runs=20000 -max_len=4096 $(B)/fuzz-corpus-pool \
		tests/fuzz/corpus/pool

deps:
	@tools/deps.sh --build

# The Debian packages (tools/pkg/debian), built from a copy of the
# checkout in $(B)/pkg/src; the .debs land in $(B)/pkg.
deb:
	tools/pkg/build-deb.sh $(B)/pkg

# The RPMs (tools/pkg/gpuaware.spec), in $(B)/rpm/RPMS; on Debian against
# an OpenSM under OSM_PREFIX (make rpm OSM_PREFIX=$$(tools/build-opensm.sh
# 3.3.24)).
rpm:
	OSM_PREFIX=$(OSM_PREFIX) tools/pkg/build-rpm.sh $(B)/rpm

deps-test:
	@tools/deps.sh --test

deps-demo:
	@tools/deps.sh --demo

# Every header compiles on its own (the plugin's need OpenSM's include
# path), and the live reader's beside libibverbs', whose ibv_ names it
# must leave alone.
HEADERS := $(wildcard topology/*.h routing/*.h routing/*/*.h sm/*.h \
	plugins/opensm/*.h tools/*/*.h tools/lib/*/*.h tests/unit/*.h \
	tests/bench/*.h)

headers:
	@for h in $(HEADERS); do \
		echo "#include \"$$h\"" | $(CC) $(CPPFLAGS) -I$(OSM_INC) \
			-std=c11 $(WARN) -x c -fsyntax-only - || exit 1; done
	@printf '#include <infiniband/verbs.h>\n#include "%s"\n' \
		tools/lib/livefab/livefab.h | $(CC) $(CPPFLAGS) -std=c11 $(WARN) \
		-x c -fsyntax-only -

check-unit: $(B)/unit-tests
	$(B)/unit-tests

check-ibsim: all
	tests/ibsim/run-all.sh $(B)

check: deps-test
	$(MAKE) all headers $(B)/unit-tests $(B)/poold-load $(B)/a2a-bound \
		$(B)/frag-bound $(B)/auth-load $(B)/hints-add $(B)/rmppsim.so $(B)/pool-only matrix
	tests/run-check.sh $(B)

check-sanitize: deps-test
	$(MAKE) B=build-san SANITIZER=address,undefined all \
		$(B:build=build-san)/unit-tests $(B:build=build-san)/rmppsim.so \
		$(B:build=build-san)/a2a-bound $(B:build=build-san)/frag-bound \
		$(B:build=build-san)/pool-only \
		$(B:build=build-san)/poold-load matrix
	tests/run-check.sh build-san

demo: deps-demo
	$(MAKE) all
	tools/demo.sh $(B)

bench: deps-test
	$(MAKE) all $(B)/a2a-bound $(B)/frag-bound $(B)/auth-load $(B)/rmppsim.so
	tests/bench/run.sh $(B)

install: all
	install -d $(DESTDIR)$(PLUGINDIR) $(DESTDIR)$(BINDIR) \
		$(DESTDIR)$(SYSCONFDIR)/opensm $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man8
	install -m 0644 $(PB)/libgpuaware.so $(DESTDIR)$(PLUGINDIR)/libgpuaware.so
	install -m 0755 $(B)/ibpoolroute $(B)/ibtopogen $(B)/ibpoold \
		$(DESTDIR)$(BINDIR)/
	$(foreach m,$(MANPAGES),install -m 0644 $(m) \
		$(DESTDIR)$(MANDIR)/man$(call mansec,$(m))/ &&) true
	install -m 0644 plugins/opensm/gpuaware.conf \
		$(DESTDIR)$(SYSCONFDIR)/opensm/gpuaware.conf.sample
	install -d $(DESTDIR)$(UNITDIR)
	$(foreach u,$(UNITS),sed 's|@BINDIR@|$(BINDIR)|' $(u) > \
		$(DESTDIR)$(UNITDIR)/$(notdir $(u)) &&) true
	install -d $(DESTDIR)$(HOOKDIR) $(DESTDIR)$(SYSCONFDIR)/gpuaware
	for f in $(HOOKS); do \
		sed 's|/etc/gpuaware/|$(SYSCONFDIR)/gpuaware/|g' \
			plugins/slurm/$$f > $(DESTDIR)$(HOOKDIR)/$$f && \
		chmod 0755 $(DESTDIR)$(HOOKDIR)/$$f || exit 1; \
	done
	install -m 0644 tools/ibpoold/pool.conf \
		$(DESTDIR)$(SYSCONFDIR)/gpuaware/pool.conf.sample
	install -m 0644 plugins/slurm/slurm-hooks.conf \
		$(DESTDIR)$(SYSCONFDIR)/gpuaware/slurm-hooks.conf.sample
	install -d $(DESTDIR)$(ALERTDIR)
	install -m 0644 tools/pkg/gpuaware-alerts.yml $(DESTDIR)$(ALERTDIR)/
	if [ -z "$(DESTDIR)" ]; then ldconfig; fi

uninstall:
	rm -f $(DESTDIR)$(PLUGINDIR)/libgpuaware.so \
		$(DESTDIR)$(BINDIR)/ibpoolroute $(DESTDIR)$(BINDIR)/ibtopogen \
		$(DESTDIR)$(BINDIR)/ibpoold \
		$(DESTDIR)$(SYSCONFDIR)/opensm/gpuaware.conf.sample \
		$(addprefix $(DESTDIR)$(UNITDIR)/,$(notdir $(UNITS))) \
		$(foreach m,$(MANPAGES),\
			$(DESTDIR)$(MANDIR)/man$(call mansec,$(m))/$(notdir $(m))) \
		$(addprefix $(DESTDIR)$(HOOKDIR)/,$(HOOKS)) \
		$(DESTDIR)$(SYSCONFDIR)/gpuaware/pool.conf.sample \
		$(DESTDIR)$(SYSCONFDIR)/gpuaware/slurm-hooks.conf.sample \
		$(DESTDIR)$(ALERTDIR)/gpuaware-alerts.yml
	rmdir $(DESTDIR)$(HOOKDIR) $(dir $(DESTDIR)$(HOOKDIR)) \
		$(DESTDIR)$(SYSCONFDIR)/gpuaware $(DESTDIR)$(ALERTDIR) \
		$(dir $(DESTDIR)$(ALERTDIR)) 2>/dev/null || true

clean:
	rm -rf build build-san

-include $(shell find $(B) -name '*.d' 2>/dev/null)

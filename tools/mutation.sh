#!/bin/bash
# mutation.sh — mutation testing of the core against its tests.
#
#   tools/mutation.sh [NAME...]        (make mutation runs every mutant)
#   tools/mutation.sh --sql [NAME...]  (make mutation-sql)
#
# Reads the mutants of tests/mutation/mutants.txt (MUTANTS= another list),
# copies the tree (the files git knows, plus untracked ones not ignored) to a
# scratch directory under /tmp, checks that the unmutated copy passes
# `make unit`, then for each mutant, one at a time: applies it, runs
# `make -s unit` under a time limit, and restores the file.  A mutant is
# killed when make unit fails (a failed test, a crash, or the time limit:
# a hang), and survives when every test passes.  Prints one line per
# mutant, the survivors, and last "mutation score: K/N killed (P%)".
#
# With --sql the same mutants are run against the SQL-level suites instead:
# only those whose block says "sql: yes" (the code is reachable through the
# SQL API), all of them or the NAMEs given.  The copy is built and its
# unmutated extension must pass pg_regress and the isolation specs (and the
# TAP files the mutants name in "tap:"); then each mutant is applied, the
# extension rebuilt and installed into the system PostgreSQL, pg_regress,
# isolation and its TAP files run, and the unmutated build installed again.
# The install and the suites of each mutant run under the lock
# /tmp/gpualloc-pg.lock (the one every install into the shared PostgreSQL
# takes), held per mutant and released only once the unmutated build is
# back in place, also when the run stops on an error or a signal: do not
# start it under that lock yourself.  As root the suites run as the postgres
# user on a copy of the tree under /tmp, as tools/run-tests.sh does.  Ends
# with "sql mutation score: K/N killed (P%)".
#
# A mutant whose text is not found exactly once in its file is stale (the
# code moved on): that is an error, reported before anything runs, never a
# survivor.  So is a mutant that does not compile.
#
# Exit status: 0 when every mutant is killed, 1 when some survive, 2 on an
# error (stale mutant, unknown name, a NAME marked "sql: no" given to --sql,
# mutant that does not build, unmutated tree failing its tests).
#
# Environment: MUTANTS (the list), MUTATION_TIMEOUT (seconds per mutant;
# default four times the unmutated run plus a minute; with --sql seconds per
# suite, default four times the unmutated suites plus three minutes),
# MUTATION_KEEP=1 keeps the scratch copy (with --sql, each mutant's log and
# the diffs of what failed).
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)
MUTANTS=${MUTANTS:-tests/mutation/mutants.txt}
case $MUTANTS in /*) ;; *) MUTANTS=$ROOT/$MUTANTS ;; esac

# The list's reader and the mutator, in Perl (part of every Debian system).
#   list ROOT LIST             name<TAB>file<TAB>what, one line per mutant;
#                              also checks the list's form and that every
#                              mutant's text occurs exactly once under ROOT
#   list-sql ROOT LIST         name<TAB>file<TAB>sql<TAB>tap<TAB>what, the
#                              same checks; sql is the block's "sql:" value
#                              ("-" when it has none), tap its TAP files
#                              separated by blanks ("-" when none)
#   apply ROOT LIST NAME       applies mutant NAME to its file under ROOT
# Exits 2 with a message naming the mutant on any problem.
read -r -d '' MUTANT_PL <<'PERL'
use strict;
use warnings;

my ($mode, $root, $list, $only) = @ARGV;

sub unescape {
	my ($s) = @_;
	$s =~ s/\\(.)/$1 eq 'n' ? "\n" : $1 eq 't' ? "\t" : $1 eq '\\' ? '\\' : die "unknown escape \\$1\n"/ge;
	return $s;
}

sub fail { print STDERR "mutation: $_[0]\n"; exit 2; }

open(my $fh, '<', $list) or fail("cannot read $list: $!");
my (@mutants, %seen, $cur);
while (my $line = <$fh>) {
	chomp $line;
	next if $line =~ /^\s*(#|$)/;
	if ($line =~ /^\[([A-Za-z0-9_.-]+)\]\s*$/) {
		fail("$list:$.: mutant \"$1\" is listed twice") if $seen{$1}++;
		$cur = { name => $1, line => $. };
		push @mutants, $cur;
	} elsif ($line =~ /^(file|what|from|to|sql|tap):[ \t]*(.*)$/) {
		fail("$list:$.: \"$1\" before the first [name]") unless $cur;
		fail("$list:$.: mutant \"$cur->{name}\" has two \"$1\" lines") if exists $cur->{$1};
		$cur->{$1} = $1 eq 'from' || $1 eq 'to' ? unescape($2) : $2;
	} else {
		fail("$list:$.: cannot read this line: $line");
	}
}
close($fh);
fail("$list lists no mutant") unless @mutants;

sub occurrences {
	my ($text, $needle) = @_;
	my ($n, $at) = (0, -1);
	while (($at = index($text, $needle, $at + 1)) >= 0) {
		$n++;
	}
	return $n;
}

sub slurp {
	my ($path) = @_;
	open(my $in, '<', $path) or return undef;
	local $/;
	my $text = <$in>;
	close($in);
	return $text;
}

sub check {
	my ($m) = @_;
	my $where = "mutant \"$m->{name}\" ($list:$m->{line})";
	for my $key (qw(file what from to)) {
		fail("$where has no \"$key\" line") unless defined $m->{$key};
	}
	fail("$where: \"from\" is empty") if $m->{from} eq '';
	fail("$where: \"from\" and \"to\" are the same") if $m->{from} eq $m->{to};
	if (defined $m->{sql}) {
		fail("$where: \"sql\" must be \"yes\", or \"no\" with a reason (\"no \x{e2}\x{80}\x{94} why\")")
			unless $m->{sql} =~ /^yes\s*$/ || $m->{sql} =~ /^no\s*(?:\x{e2}\x{80}\x{94}|-|:)\s*\S/;
	}
	if (defined $m->{tap}) {
		fail("$where: \"tap\" needs \"sql: yes\"") unless ($m->{sql} // '') =~ /^yes/;
		for my $t (split ' ', $m->{tap}) {
			fail("$where: \"tap\" names $t, not a file t/NAME.pl of the tree")
				unless $t =~ m{^t/[A-Za-z0-9_.-]+\.pl$} && -f "$root/$t";
		}
	}
	my $text = slurp("$root/$m->{file}");
	fail("$where: cannot read $m->{file}") unless defined $text;
	my $n = occurrences($text, $m->{from});
	fail("$where is stale: its text occurs $n times in $m->{file}, not once") if $n != 1;
	return $text;
}

if ($mode eq 'list') {
	for my $m (@mutants) {
		check($m);
		print "$m->{name}\t$m->{file}\t$m->{what}\n";
	}
} elsif ($mode eq 'list-sql') {
	for my $m (@mutants) {
		check($m);
		my $sql = defined $m->{sql} ? $m->{sql} : '-';
		my $tap = defined $m->{tap} && $m->{tap} =~ /\S/ ? join(' ', split(' ', $m->{tap})) : '-';
		$sql =~ s/\s+$//;
		print "$m->{name}\t$m->{file}\t$sql\t$tap\t$m->{what}\n";
	}
} elsif ($mode eq 'apply') {
	my ($m) = grep { $_->{name} eq $only } @mutants;
	fail("no mutant named \"$only\" in $list") unless $m;
	my $text = check($m);
	my $at = index($text, $m->{from});
	substr($text, $at, length($m->{from})) = $m->{to};
	open(my $out, '>', "$root/$m->{file}") or fail("cannot write $m->{file}: $!");
	print $out $text;
	close($out) or fail("cannot write $m->{file}: $!");
} else {
	fail("unknown mode $mode");
}
PERL

mutant_tool() {
	perl -e "$MUTANT_PL" "$@"
}

sql=0
if [ "${1:-}" = --sql ]; then
	sql=1
	shift
fi

# Every mutant is checked against the tree as it is here, first.  The table
# has one line per mutant to run: name<TAB>file<TAB>what, and with --sql
# name<TAB>file<TAB>tap<TAB>what.
if [ "$sql" = 1 ]; then
	all=$(mutant_tool list-sql "$ROOT" "$MUTANTS") || exit 2
else
	all=$(mutant_tool list "$ROOT" "$MUTANTS") || exit 2
fi
table=$all
if [ $# -gt 0 ]; then
	for name in "$@"; do
		printf '%s\n' "$all" | cut -f1 | grep -qxF -- "$name" || {
			echo "mutation: no mutant named \"$name\" in $MUTANTS" >&2
			exit 2
		}
	done
	table=$(printf '%s\n' "$all" | awk -F '\t' 'BEGIN { for (i = 1; i < ARGC; i++) want[ARGV[i]] = 1; ARGC = 1 } want[$1]' "$@")
fi
if [ "$sql" = 1 ]; then
	not_sql=$(printf '%s\n' "$table" | awk -F '\t' '$3 != "yes" { print "  " $1 ": " ($3 == "-" ? "no sql: line" : "sql: " $3) }')
	if [ $# -gt 0 ] && [ -n "$not_sql" ]; then
		echo "mutation: not run against the SQL suites (only mutants with \"sql: yes\" are):" >&2
		printf '%s\n' "$not_sql" >&2
		exit 2
	fi
	unreachable=$(printf '%s\n' "$table" | awk -F '\t' '$3 ~ /^no/ { print "  " $1 ": " $3 }')
	unassessed=$(printf '%s\n' "$table" | awk -F '\t' '$3 == "-"' | grep -c .)
	table=$(printf '%s\n' "$table" | awk -F '\t' -v OFS='\t' '$3 == "yes" { print $1, $2, $4, $5 }')
fi
total=$(printf '%s\n' "$table" | grep -c .)
if [ "$total" -eq 0 ]; then
	[ "$sql" = 1 ] && why=' (none says "sql: yes")' || why=""
	echo "mutation: no mutant of $MUTANTS to run$why" >&2
	exit 2
fi

PG_LOCK=/tmp/gpualloc-pg.lock
locked=0
mutated=0	# 1 while the system PostgreSQL may hold a mutated build

scratch=$(mktemp -d /tmp/gpualloc-mutation.XXXXXX)
sql_work=""	# the copy of the tree the SQL suites run in, while they run
bounded_pid=""	# the test run bounded is waiting for

# bounded LOG CMD...: runs a test run (a command under `timeout`), its
# output to LOG, in the background and waits for it, returning its exit
# status.  Waiting so, the
# script acts on a signal at once: bash defers a trap while a foreground
# command runs, and forgets a SIGINT when that command does not die of it,
# which `timeout` (in a process group of its own) never does.  The cleanup
# stops the run.
bounded() {
	local out=$1
	shift
	"$@" >"$out" 2>&1 </dev/null &
	bounded_pid=$!
	wait "$bounded_pid"
	local rc=$?
	bounded_pid=""
	return "$rc"
}

cleanup() {
	if [ -n "$bounded_pid" ]; then
		kill -TERM "$bounded_pid" 2>/dev/null
		wait "$bounded_pid" 2>/dev/null
	fi
	if [ -n "$sql_work" ]; then
		if [ "$(id -u)" = 0 ]; then
			stop_servers "$sql_work" runuser -u postgres --
		else
			stop_servers "$sql_work"
		fi
		[ "$sql_work" != "$tree" ] && rm -rf "$sql_work" "$sql_work".*.log
	fi
	[ "$locked" = 1 ] && release_lock
	if [ "${MUTATION_KEEP:-0}" = 1 ]; then
		echo "scratch copy kept in $scratch"
	else
		rm -rf "$scratch"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
tree=$scratch/tree
mkdir -p "$tree" "$scratch/orig"
if git rev-parse --git-dir >/dev/null 2>&1; then
	git ls-files -z --cached --others --exclude-standard |
		tar --null --ignore-failed-read -T - -cf - 2>/dev/null | tar -xf - -C "$tree"
else
	tar --exclude=.git --exclude=./build -cf - . | tar -xf - -C "$tree"
fi

killed=0
survived=0
errors=0
survivors=""

# record RC LOG NAME FILE WHAT: counts a run of the tests (exit status RC,
# output in LOG, the failing tests in $failing) and sets result.
record() {
	if [ "$1" -eq 0 ]; then
		survived=$((survived + 1))
		survivors="$survivors$3 ($4): $5
"
		result="survived $3 ($4): $5"
	elif [ "$1" -eq 124 ] || [ "$1" -eq 137 ]; then
		killed=$((killed + 1))
		result="killed   $3 by timeout (${limit}s: a hang)"
	elif [ -n "$failing" ]; then
		killed=$((killed + 1))
		result="killed   $3 by $failing"
	else
		killed=$((killed + 1))
		result="killed   $3 by a crash ($(grep -v '^ok ' "$2" | tail -n 1))"
	fi
}

# ---- make unit --------------------------------------------------------------

run_unit_mutants() {
	echo "mutation: $total mutants from ${MUTANTS#"$ROOT"/}; scratch copy $tree"
	start=$(date +%s)
	if ! make -s -C "$tree" unit >"$scratch/baseline.log" 2>&1; then
		grep -v '^ok ' "$scratch/baseline.log" | tail -n 30
		echo "mutation: the unmutated tree fails make unit; nothing to measure" >&2
		exit 2
	fi
	base_s=$(($(date +%s) - start))
	limit=${MUTATION_TIMEOUT:-$((4 * base_s + 60))}
	echo "mutation: unmutated make unit passes in ${base_s}s ($(tail -n 1 "$scratch/baseline.log")); limit per mutant ${limit}s"

	while IFS="$(printf '\t')" read -r name file what; do
		t0=$(date +%s)
		cp -p "$tree/$file" "$scratch/orig/file"
		log=$scratch/mutant.log
		if ! mutant_tool apply "$tree" "$MUTANTS" "$name"; then
			errors=$((errors + 1))
			result="ERROR    $name ($file): cannot apply"
		elif ! make -s -C "$tree" build/unit_tests >"$log" 2>&1; then
			errors=$((errors + 1))
			result="ERROR    $name ($file): does not build: $(grep -m 1 'error' "$log")"
		else
			bounded "$log" timeout -k 10 "$limit" make -s -C "$tree" unit
			rc=$?
			failing=$(sed -n 's/^FAIL \([^ ]*\).*/\1/p' "$log" | head -n 3 | paste -sd, - | sed 's/,/, /g')
			more=$(($(grep -c '^FAIL ' "$log") - 3))
			[ "$more" -gt 0 ] && failing="$failing and $more more"
			record "$rc" "$log" "$name" "$file" "$what"
		fi
		cp -p "$scratch/orig/file" "$tree/$file"
		rm -f "$tree/build/unit_tests"
		echo "$result [$(($(date +%s) - t0))s]"
	done <<LIST
$table
LIST
}

# ---- the SQL-level suites ---------------------------------------------------

# The lock every install into the system PostgreSQL and every test run on it
# takes, held by this shell on descriptor 9.
take_lock() {
	exec 9>>"$PG_LOCK" || { echo "mutation: cannot open $PG_LOCK" >&2; exit 2; }
	if ! flock -n 9; then
		echo "mutation: waiting for $PG_LOCK (another install or test run holds it)"
		flock 9
	fi
	locked=1
}

# Never released while a mutated build is installed.
release_lock() {
	if [ "$mutated" = 1 ] && ! install_real; then
		echo "mutation: could not reinstall the unmutated build: the installed gpualloc may be a mutant; run make install" >&2
	fi
	flock -u 9
	exec 9>&-
	locked=0
}

# The unmutated build, staged once under $scratch/real by make install
# DESTDIR=..., copied over whatever is installed.
install_real() {
	cp -R "$scratch/real/." / && mutated=0
}

# Stops the servers a suite cut short by the time limit left running.
stop_servers() {	# stop_servers WORK AS...
	local work=$1 pid
	shift
	find "$work" -name postmaster.pid 2>/dev/null | while read -r pid; do
		"$@" "$(pg_config --bindir)/pg_ctl" -D "$(dirname "$pid")" -m immediate stop >/dev/null 2>&1
	done
}

# What a suite's log says passed: "P/N" tests, or "?" when it got nowhere.
suite_count() {	# suite_count LOG
	sed -n -E 's/^ *All ([0-9]+) tests passed\. *$/\1\/\1/p
		s/^ *([0-9]+) of ([0-9]+) tests failed\. *$/\2 \1/p
		s/^Files=([0-9]+), Tests=([0-9]+),.*/\2 tap/p
		s/^Result: ([A-Z]+).*/\1 result/p' "$1" |
		awk '$2 == "tap" { t = $1; next } $2 == "result" { r = $1; next }
			NF == 2 { print $1 - $2 "/" $1; done = 1; exit }
			NF == 1 { print; done = 1; exit }
			END { if (!done) print (t != "" ? t " tests " r : "?") }'
}

# sql_suites TAPS LOG: pg_regress, the isolation specs and the TAP files
# TAPS ("-": none) against the installed build, each under the time limit.
# Returns 0 when all pass, 124 on a time-out, 1 otherwise; sets failing to
# the tests that failed and counts to what each suite passed
# ("regress 13/13, isolation 2/2").
sql_suites() {
	local taps=$1 log=$2 work=$tree rc=0 r suite
	local as=()
	failing=""
	counts=""
	: >"$log"
	if [ "$(id -u)" = 0 ]; then
		work=$(mktemp -d /tmp/gpualloc-mutation-sql.XXXXXX)
		tar -C "$tree" -cf - . | tar -xf - -C "$work"
		chown -R postgres "$work"
		as=(runuser -u postgres --)
	fi
	sql_work=$work
	for suite in regress isolation tap; do
		case $suite in
		regress) set -- ISOLATION= TAP_TESTS= ;;
		isolation) set -- REGRESS= TAP_TESTS= ;;
		tap)
			[ "$taps" = - ] && continue
			set -- REGRESS= ISOLATION= PROVE_TESTS="$taps"
			;;
		esac
		bounded "$work.$suite.log" "${as[@]}" timeout -k 10 "$limit" make -C "$work" installcheck "$@"
		r=$?
		stop_servers "$work" "${as[@]}"
		cat "$work.$suite.log" >>"$log"
		counts="$counts${counts:+, }$suite $(suite_count "$work.$suite.log")"
		if [ "$r" -eq 124 ] || [ "$r" -eq 137 ]; then
			rc=124
		elif [ "$r" -ne 0 ] && [ "$rc" -eq 0 ]; then
			rc=1
		fi
		failing="$failing $(sed -n -E 's/^(test )? *([A-Za-z0-9_.-]+) +\.\.\. FAILED.*/\2/p; s/^(t\/[^ ]+\.pl) +\(Wstat.*/\1/p' "$work.$suite.log" | paste -sd ' ' -)"
		if [ "$r" -ne 0 ]; then	# what failed, kept next to the log
			case $suite in
			regress) cat "$work/regression.diffs" ;;
			isolation) cat "$work/output_iso/regression.diffs" ;;
			tap) tail -n 40 "$work"/tmp_check/log/regress_log_* ;;
			esac >>"$log.diffs" 2>/dev/null
		fi
		rm -f "$work.$suite.log"
	done
	failing=$(echo $failing | sed 's/ /, /g')
	[ "$work" != "$tree" ] && rm -rf "$work"
	sql_work=""
	return "$rc"
}

run_sql_mutants() {
	local taps_all
	command -v pg_config >/dev/null || { echo "mutation: pg_config not found (make deps)" >&2; exit 2; }
	command -v flock >/dev/null || { echo "mutation: flock not found" >&2; exit 2; }
	# the unmutated run takes every TAP file some mutant names
	taps_all=$(printf '%s\n' "$table" | cut -f3 | tr ' ' '\n' | grep -v '^-$' | sort -u | paste -sd ' ' -)
	echo "mutation: $total mutants with \"sql: yes\" from ${MUTANTS#"$ROOT"/}; scratch copy $tree"
	if ! make -s -j2 -C "$tree" >"$scratch/baseline.log" 2>&1 ||
		! make -s -C "$tree" install DESTDIR="$scratch/real" >>"$scratch/baseline.log" 2>&1; then
		tail -n 30 "$scratch/baseline.log"
		echo "mutation: the unmutated tree does not build; nothing to measure" >&2
		exit 2
	fi
	limit=${MUTATION_TIMEOUT:-3600}
	take_lock
	start=$(date +%s)
	mutated=1
	install_real || { echo "mutation: cannot install into $(pg_config --pkglibdir)" >&2; exit 2; }
	sql_suites "${taps_all:--}" "$scratch/baseline.log"
	rc=$?
	release_lock
	if [ "$rc" -ne 0 ]; then
		grep -E '^(test|permutation|t/| +[0-9]+ of| +All|Result:)' "$scratch/baseline.log" | tail -n 40
		[ -f "$scratch/baseline.log.diffs" ] && head -n 60 "$scratch/baseline.log.diffs"
		echo "mutation: the unmutated tree fails the SQL suites${failing:+ ($failing)}; nothing to measure" >&2
		exit 2
	fi
	base_s=$(($(date +%s) - start))
	limit=${MUTATION_TIMEOUT:-$((4 * base_s + 180))}
	echo "mutation: unmutated build passes in ${base_s}s ($counts); limit per suite ${limit}s"

	while IFS="$(printf '\t')" read -r name file taps what; do
		t0=$(date +%s)
		cp -p "$tree/$file" "$scratch/orig/file"
		log=$scratch/$name.log
		if ! mutant_tool apply "$tree" "$MUTANTS" "$name"; then
			errors=$((errors + 1))
			result="ERROR    $name ($file): cannot apply"
		elif ! make -s -j2 -C "$tree" >"$log" 2>&1; then
			errors=$((errors + 1))
			result="ERROR    $name ($file): does not build: $(grep -m 1 'error' "$log")"
		else
			take_lock
			mutated=1
			if ! make -s -C "$tree" install >>"$log" 2>&1; then
				release_lock
				errors=$((errors + 1))
				result="ERROR    $name ($file): make install failed: $(tail -n 1 "$log")"
			else
				sql_suites "$taps" "$log"
				rc=$?
				release_lock
				record "$rc" "$log" "$name" "$file" "$what"
				result="$result ($counts)"
			fi
		fi
		# back to the unmutated source, newer than every object built from the mutant
		cp -p "$scratch/orig/file" "$tree/$file"
		touch "$tree/$file"
		echo "$result [$(($(date +%s) - t0))s]"
	done <<LIST
$table
LIST
}

if [ "$sql" = 1 ]; then
	run_sql_mutants
else
	run_unit_mutants
fi

echo
if [ "$survived" -gt 0 ]; then
	echo "survivors:"
	printf '%s' "$survivors" | sed 's/^/  /'
else
	echo "survivors: none"
fi
[ "$errors" -gt 0 ] && echo "errors: $errors mutants could not be run (see ERROR lines)"
if [ "$sql" = 1 ]; then
	[ -n "$unreachable" ] && printf 'not reachable from SQL (sql: no):\n%s\n' "$unreachable"
	[ "$unassessed" -gt 0 ] && echo "not run: $unassessed mutants have no \"sql:\" line"
	score="sql mutation score"
else
	score="mutation score"
fi
echo "$score: $killed/$total killed ($(awk -v k="$killed" -v n="$total" 'BEGIN { printf "%.1f", (n > 0 ? 100 * k / n : 0) }')%)"
[ "$errors" -gt 0 ] && exit 2
[ "$survived" -gt 0 ] && exit 1
exit 0

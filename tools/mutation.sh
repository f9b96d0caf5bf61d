#!/bin/bash
# mutation.sh — mutation testing of the core against its unit tests.
#
#   tools/mutation.sh [NAME...]      (make mutation runs every mutant)
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
# A mutant whose text is not found exactly once in its file is stale (the
# code moved on): that is an error, reported before anything runs, never a
# survivor.  So is a mutant that does not compile.
#
# Exit status: 0 when every mutant is killed, 1 when some survive, 2 on an
# error (stale mutant, unknown name, mutant that does not build, unmutated
# tree failing its tests).
#
# Environment: MUTANTS (the list), MUTATION_TIMEOUT (seconds per mutant;
# default four times the unmutated run plus a minute), MUTATION_KEEP=1
# keeps the scratch copy.
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)
MUTANTS=${MUTANTS:-tests/mutation/mutants.txt}
case $MUTANTS in /*) ;; *) MUTANTS=$ROOT/$MUTANTS ;; esac

# The list's reader and the mutator, in Perl (part of every Debian system).
#   list ROOT LIST             name<TAB>file<TAB>what, one line per mutant;
#                              also checks the list's form and that every
#                              mutant's text occurs exactly once under ROOT
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
	} elsif ($line =~ /^(file|what|from|to):[ \t]*(.*)$/) {
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

# Every mutant is checked against the tree as it is here, first.
table=$(mutant_tool list "$ROOT" "$MUTANTS") || exit 2
if [ $# -gt 0 ]; then
	for name in "$@"; do
		printf '%s\n' "$table" | cut -f1 | grep -qxF -- "$name" || {
			echo "mutation: no mutant named \"$name\" in $MUTANTS" >&2
			exit 2
		}
	done
	table=$(printf '%s\n' "$table" | awk -F '\t' 'BEGIN { for (i = 1; i < ARGC; i++) want[ARGV[i]] = 1; ARGC = 1 } want[$1]' "$@")
fi
total=$(printf '%s\n' "$table" | wc -l)

scratch=$(mktemp -d /tmp/gpualloc-mutation.XXXXXX)
cleanup() {
	if [ "${MUTATION_KEEP:-0}" = 1 ]; then
		echo "scratch copy kept in $scratch"
	else
		rm -rf "$scratch"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
tree=$scratch/tree
mkdir -p "$tree" "$scratch/orig"
if git rev-parse --git-dir >/dev/null 2>&1; then
	git ls-files -z --cached --others --exclude-standard |
		tar --null --ignore-failed-read -T - -cf - 2>/dev/null | tar -xf - -C "$tree"
else
	tar --exclude=.git --exclude=./build -cf - . | tar -xf - -C "$tree"
fi

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

killed=0
survived=0
errors=0
survivors=""
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
		timeout -k 10 "$limit" make -s -C "$tree" unit >"$log" 2>&1
		rc=$?
		failing=$(sed -n 's/^FAIL \([^ ]*\).*/\1/p' "$log" | head -n 3 | paste -sd, - | sed 's/,/, /g')
		more=$(($(grep -c '^FAIL ' "$log") - 3))
		[ "$more" -gt 0 ] && failing="$failing and $more more"
		if [ "$rc" -eq 0 ]; then
			survived=$((survived + 1))
			survivors="$survivors$name ($file): $what
"
			result="survived $name ($file): $what"
		elif [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
			killed=$((killed + 1))
			result="killed   $name by timeout (${limit}s: a hang)"
		elif [ -n "$failing" ]; then
			killed=$((killed + 1))
			result="killed   $name by $failing"
		else
			killed=$((killed + 1))
			result="killed   $name by a crash ($(grep -v '^ok ' "$log" | tail -n 1))"
		fi
	fi
	cp -p "$scratch/orig/file" "$tree/$file"
	rm -f "$tree/build/unit_tests"
	echo "$result [$(($(date +%s) - t0))s]"
done <<LIST
$table
LIST

echo
if [ "$survived" -gt 0 ]; then
	echo "survivors:"
	printf '%s' "$survivors" | sed 's/^/  /'
else
	echo "survivors: none"
fi
[ "$errors" -gt 0 ] && echo "errors: $errors mutants could not be run (see ERROR lines)"
echo "mutation score: $killed/$total killed ($(awk -v k="$killed" -v n="$total" 'BEGIN { printf "%.1f", (n > 0 ? 100 * k / n : 0) }')%)"
[ "$errors" -gt 0 ] && exit 2
[ "$survived" -gt 0 ] && exit 1
exit 0

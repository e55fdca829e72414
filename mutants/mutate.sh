#!/bin/sh
# The body of `make mutate`: mutation testing of every package, in a
# private copy of the working tree (others build in this one: a mutated
# file here would break their builds). A package with a list of hand-made
# mutants (mutants/PKG.txt, / written _) runs it with `go run ./mutants`;
# every other package runs gremlins. It ends with the efficacy
# (killed / (killed + lived)) and the time of each package.
#
# Environment (the Makefile passes its variables):
#   MUTATE_PKGS     packages, as folders (default: every package of the module)
#   CHANGED         a commit: only what changed since it (and files not yet
#                   committed): gremlins' --diff for its packages (the changed
#                   lines), the mutants of the changed files for hand-made lists
#   MUTATE_WORKERS  gremlins' workers (default 1)
#   MUTATE_TIMEOUT  a mutant's tests time out after this many times an
#                   unmutated run (default 5)
#   GREMLINS_BIN    the gremlins binary (default bin/tools/gremlins)
#
# history runs twice, its tests on SQLite then on PostgreSQL (built with
# the tag clapper_store_postgres; CLAPPER_TEST_PG_URL names a server, else
# each run starts a throwaway one), when PostgreSQL can be had.
set -u
root=$(pwd)
logs=$root/bin/mutate
gremlins=${GREMLINS_BIN:-$root/bin/tools/gremlins}
workers=${MUTATE_WORKERS:-1}
coeff=${MUTATE_TIMEOUT:-5}
changed_since=${CHANGED:-}
pkgs=${MUTATE_PKGS:-$(go list -f '{{.Dir}}' ./... | sed "s|^$root/*||; s|^\$|.|")}

work=$(mktemp -d "${TMPDIR:-/tmp}/clapper-mutate.XXXXXX") || exit 1
# The copy goes whatever ends the run; an interrupt ends it too (the EXIT
# trap runs then). The runner of hand-made mutants puts its file back itself.
trap 'rm -rf "$work"' EXIT
trap 'echo "mutate: interrupted"; exit 130' INT TERM HUP
mkdir -p "$logs" "$work/tree"
tar -C "$root" --exclude=./bin -cf - . | tar -C "$work/tree" -xf - || exit 1

changed=
if [ -n "$changed_since" ]; then
	if ! git rev-parse -q --verify "$changed_since^{commit}" >/dev/null; then
		echo "mutate: CHANGED=$changed_since is not a commit here (try CHANGED=main~5)" >&2
		exit 2
	fi
	untracked=$(git ls-files --others --exclude-standard -- '*.go')
	changed=$({ git diff --merge-base --name-only "$changed_since" -- '*.go'; echo "$untracked"; } |
		grep -v -e '_test\.go$' -e '^$' | sort -u)
	# gremlins' --diff reads `git diff` in the copy: new files are made
	# known to the copy's index (intent to add) so their lines count.
	if [ -n "$untracked" ]; then
		(cd "$work/tree" && echo "$untracked" | xargs git add -N) || exit 1
	fi
fi

(cd "$work/tree" && go build -o "$work/mutants" ./mutants) || exit 1

summary=

# unleash runs gremlins on package $1 into log $2, with gremlins' own
# flags $3 ("" for none) and the tests' environment after them. gremlins names a mutant's
# file relative to its package and the diff's files relative to where git
# runs: it runs in the package's folder, with git diff relative to it
# (diff.relative), or every changed line of a package below the root
# counts as unchanged. It also mutates every folder below the one it is
# given, each package of them: a file named with a / (of a package below
# this one, api/catalog for api, every package for the root) is left to
# that package's own run.
unleash() {
	dir=$work/tree/$1 log=$2 flags=$3
	shift 3
	(cd "$dir" && env "$@" GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=diff.relative GIT_CONFIG_VALUE_0=true \
		"$gremlins" unleash $flags --workers "$workers" --timeout-coefficient "$coeff" --exclude-files / \
		${changed_since:+--diff "$changed_since"} --output-statuses lt "$dir") >"$log" 2>&1
}

# report prints a run's survivors and adds its line, named $1, from log
# $2, begun at $3, to the summary.
report() {
	grep -E '^ *(LIVED|TIMED OUT|STALE)' "$2" | sed 's/^ */   /'
	secs=$(($(date +%s) - $3))
	summary="$summary$(printf '  %-20s %-24s %-30s %dm%02ds' "$1" \
		"$(grep -o 'Test efficacy: [0-9.]*%' "$2" || echo 'Test efficacy: n/a')" \
		"$(grep -o 'Killed: [0-9]*, Lived: [0-9]*' "$2" || echo "did not run: see $2")" $((secs / 60)) $((secs % 60)))
"
}

total_start=$(date +%s)
for p in $pkgs; do
	name=$(echo "$p" | tr / _)
	[ "$name" = . ] && name=root
	out=$logs/$name.txt
	files=
	if [ -n "$changed_since" ]; then
		files=$(echo "$changed" | awk -v d="$p" '{ n = split($0, a, "/"); dir = n == 1 ? "." : substr($0, 1, length($0) - length(a[n]) - 1); if (dir == d) print }')
		if [ -z "$files" ]; then
			summary="$summary$(printf '  %-20s no file changed since %s' "$p" "$changed_since")
"
			continue
		fi
	fi
	start=$(date +%s)
	if [ -f "$work/tree/mutants/$name.txt" ]; then
		echo "== mutating ./$p by hand (mutants/$name.txt; log in $out)"
		only=$(echo "$files" | paste -sd, -)
		(cd "$work/tree" && "$work/mutants" ${only:+-only "$only"} -timeout "$coeff" "mutants/$name.txt") >"$out" 2>&1 ||
			echo "   the hand-made mutants of ./$p did not all run: see $out"
		report "$p" "$out" "$start"
		continue
	fi
	echo "== mutating ./$p with gremlins (log in $out)"
	unleash "$p" "$out" "" || echo "   gremlins failed on ./$p: see $out"
	report "$p" "$out" "$start"
	# history's tests are one contract run on two stores: its mutants are
	# tried again with the tests on PostgreSQL (the team store's code, which
	# the SQLite run never reaches), when PostgreSQL can be had.
	if [ "$p" = history ] && { [ -n "${CLAPPER_TEST_PG_URL:-}" ] || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; }; then
		out=$logs/${name}_postgres.txt
		start=$(date +%s)
		echo "== mutating ./$p with gremlins, its tests on PostgreSQL (log in $out)"
		# -count=1: go test's cache took the SQLite pass's coverage for
		# this one's, and every mutant of the team store read "not covered".
		unleash "$p" "$out" "--tags clapper_store_postgres" GOFLAGS="${GOFLAGS:+$GOFLAGS }-count=1" ||
			echo "   gremlins failed on ./$p on PostgreSQL: see $out"
		report "$p (postgres)" "$out" "$start"
	fi
done
secs=$(($(date +%s) - total_start))
echo
echo "efficacy per package (killed / (killed + lived)) and time:"
printf '%s' "$summary"
printf 'total %dm%02ds\n' $((secs / 60)) $((secs % 60))

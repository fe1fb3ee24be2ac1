#!/usr/bin/env bash
# Writes the start-up cache bin/postern uses, for each JDK given, beside the jar (app/pom.xml runs it at
# `package` for the build's JDK and for each JDK in -Dpostern.cds.jdks):
#   JDK 25+  : an ahead-of-time cache (-XX:AOTCacheOutput; classes, linked state and method profiles)
#   JDK 17-24: a dynamic class-data archive (-XX:ArchiveClassesAtExit)
# named postern-VERSION.KEY.aot / .jsa, KEY being the JDK's runtime version and vendor from its
# `release` file, computed exactly as bin/postern computes it, so the launcher only ever offers a JDK
# the cache that JDK wrote. The training is src/cds/training.jsonl plus a run of cheap tool calls
# (profiles for the hot path). usage: train.sh JAR TRAINING_DIR JAVA_HOME...
set -euo pipefail
jar="$1"; dir="$2"; shift 2

# The same function as in bin/postern: "<JAVA_RUNTIME_VERSION>-<IMPLEMENTOR>", other characters as _.
cache_key() {
  local k v rt="" impl=""
  while IFS='=' read -r k v; do
    v="${v#\"}"; v="${v%\"}"
    case "$k" in JAVA_RUNTIME_VERSION) rt="$v" ;; IMPLEMENTOR) impl="$v" ;; esac
  done < "$1/release"
  [ -n "$rt" ] || return 1
  k="$rt-$impl"
  printf '%s\n' "${k//[^A-Za-z0-9.+-]/_}"
}

{
  cat "$dir/training.jsonl"
  for ((i = 100; i < 3100; i++)); do
    printf '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"postern_targets","arguments":{}}}\n' "$i"
  done
} > "$dir/training-run.jsonl"

for home in "$@"; do
  [ -n "$home" ] || continue
  java="$home/bin/java"
  key="$(cache_key "$home")" || { echo "train.sh: $home has no usable release file; no cache for it" >&2; continue; }
  version="$(sed -n 's/^JAVA_VERSION="\{0,1\}\([0-9]*\).*/\1/p' "$home/release")"
  base="${jar%.jar}.$key"
  rm -f "$base.jsa" "$base.aot"
  if [ "${version:-0}" -ge 25 ]; then
    cache=(-XX:AOTCacheOutput="$base.aot")
  else
    cache=(-XX:ArchiveClassesAtExit="$base.jsa")
  fi
  rm -rf "$dir/journal"
  (cd "$dir" && "$java" "${cache[@]}" -XX:+UseSerialGC -Xss512k -XX:-UsePerfData \
      -jar "$jar" mcp-stdio --config "$dir/postern.json" < "$dir/training-run.jsonl" > "$dir/stdout-$key.txt" 2> "$dir/stderr-$key.txt")
  ls "$base".* >/dev/null 2>&1 || { echo "train.sh: $java wrote no cache (see $dir/stderr-$key.txt)" >&2; exit 1; }
done

# bench/provenance.sh: sourced by the bench scripts for the first line of their summaries.
#
# ms_provenance TOP: "commit C tree T" for the checkout at TOP, where T is the id of the working tree's content
# (tracked and not-ignored files, as `git add -A` would record them) and "(the working tree differs from C)" is added
# when T is not C's tree. A device machine runs a copy of the working tree whose .git may be older than the tree
# (session 20: scripts there printed an older commit): T still names the content measured, and a local
# `git log --format='%h %T'` finds the commit whose tree it is.
ms_provenance() {
  local top=$1 c t h idx
  c=$(git -C "$top" rev-parse --short HEAD 2>/dev/null) || { echo "commit ? (not a git checkout)"; return 0; }
  idx=$(mktemp)
  # a copy of the index, so that add -A hashes only what changed; the checkout's own index is left alone
  cp "$top/$(git -C "$top" rev-parse --git-path index 2>/dev/null)" "$idx" 2>/dev/null || rm -f "$idx"
  t=$(cd "$top" && GIT_INDEX_FILE=$idx git add -A 2>/dev/null && GIT_INDEX_FILE=$idx git write-tree 2>/dev/null) || t=
  rm -f "$idx"
  h=$(git -C "$top" rev-parse 'HEAD^{tree}' 2>/dev/null) || h=
  if [ -z "$t" ]; then echo "commit $c (working tree not read)"
  elif [ "$t" = "$h" ]; then echo "commit $c tree ${t:0:12}"
  else echo "commit $c tree ${t:0:12} (the working tree differs from $c)"; fi
}

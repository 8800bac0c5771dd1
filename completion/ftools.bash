# bash completion for the ftools commands (fmkfs, fsinfo, fcp, fls, ...).
# Candidates come from each command itself: "CMD --complete WORDS..." prints
# those for the last word (flags after "-", the values of enumerated flags
# such as --sync, --type, --fat, --table, -D, --alloc, --codepage, and paths inside
# the image for IMAGE::/... or ::/... with -i IMAGE, read by ftools' own
# reader). When it prints nothing, file names are completed.

_ftools_complete() {
	# The words as typed up to the cursor: bash's COMP_WORDS splits at ":"
	# and "=", which IMAGE::/PATH and --flag=VALUE hold.
	local line=${COMP_LINE:0:COMP_POINT}
	local -a words
	read -ra words <<<"$line"
	[[ $line =~ [[:space:]]$ ]] && words+=("")
	local cur=${words[${#words[@]}-1]}
	local out
	out=$("${words[0]}" --complete "${words[@]:1}" 2>/dev/null) || out=
	COMPREPLY=()
	if [[ -z $out ]]; then
		compopt -o default 2>/dev/null
		return 0
	fi
	# Readline replaces only the part of the word after its last word break
	# (":" and "=" are in COMP_WORDBREAKS): drop what comes before it from
	# each candidate.
	local breaks='' keep=0 tail
	[[ $COMP_WORDBREAKS == *:* ]] && breaks+=':'
	[[ $COMP_WORDBREAKS == *=* ]] && breaks+='='
	if [[ -n $breaks ]]; then
		tail=${cur##*[$breaks]}
		keep=$((${#cur} - ${#tail}))
	fi
	local c
	while IFS= read -r c; do
		printf -v c '%q' "${c:keep}"
		COMPREPLY+=("$c")
	done <<<"$out"
	# A directory is completed without a space, so that its contents can
	# follow.
	if [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == */ ]]; then
		compopt -o nospace 2>/dev/null
	fi
	return 0
}

for _ftools_cmd in fmkfs fsinfo fcp ffallocate fverify fls fcat frm fmkdir frmdir fmv fattrib flabel ftrim fsort fresize; do
	complete -F _ftools_complete "$_ftools_cmd"
done
unset _ftools_cmd

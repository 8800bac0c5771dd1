# bash completion for the ftools commands (fmkfs, fsinfo, fcp, fls, ...).
# Flags come from each command itself through urfave/cli's protocol: the
# command line so far followed by --generate-bash-completion prints the
# candidates. Other words complete as file names (images and host paths).

_ftools_complete() {
	local cur words
	cur="${COMP_WORDS[COMP_CWORD]}"
	if [[ "$cur" == -* ]]; then
		words=("${COMP_WORDS[@]:0:COMP_CWORD}")
		local IFS=$'\n'
		COMPREPLY=($(compgen -W "$("${words[@]}" "$cur" --generate-bash-completion 2>/dev/null)" -- "$cur"))
		return 0
	fi
	COMPREPLY=()
	compopt -o default 2>/dev/null
	return 0
}

for _ftools_cmd in fmkfs fsinfo fcp ffallocate fverify fls fcat frm fmkdir frmdir fmv fattrib flabel; do
	complete -F _ftools_complete "$_ftools_cmd"
done
unset _ftools_cmd

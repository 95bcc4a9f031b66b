# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_crdlint_global_optspecs
    string join \n h/help V/version
end

function __fish_crdlint_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_crdlint_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_crdlint_using_subcommand
    set -l cmd (__fish_crdlint_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c crdlint -n "__fish_crdlint_needs_command" -s h -l help -d 'Print help'
complete -c crdlint -n "__fish_crdlint_needs_command" -s V -l version -d 'Print version'
complete -c crdlint -n "__fish_crdlint_needs_command" -f -a "check" -d 'Check CRDs and custom resources for everything the API server would reject'
complete -c crdlint -n "__fish_crdlint_needs_command" -f -a "dry-run" -d 'Print custom resources as the API server would store them: pruned, defaulted, in the storage version'
complete -c crdlint -n "__fish_crdlint_needs_command" -f -a "cost" -d 'Show the API server\'s estimated CEL cost of every rule, and bounds that fix breaches'
complete -c crdlint -n "__fish_crdlint_needs_command" -f -a "rules" -d 'List the diagnostic codes, or print the documentation of one'
complete -c crdlint -n "__fish_crdlint_needs_command" -f -a "explain" -d 'Describe the fields of a custom resource from local CRDs, like `kubectl explain`'
complete -c crdlint -n "__fish_crdlint_needs_command" -f -a "completions" -d 'Print a shell completion script (bash, zsh, fish, powershell, elvish)'
complete -c crdlint -n "__fish_crdlint_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c crdlint -n "__fish_crdlint_using_subcommand check" -l crds -l crd -d 'Load CRDs from PATH to resolve custom resources, without reporting on them' -r -F
complete -c crdlint -n "__fish_crdlint_using_subcommand check" -l old -d 'Objects as currently stored (e.g. the previous revision of the manifests): a custom resource with the same API group, kind, namespace and name (in any version) is checked as an update of it (metadata update rules, ratcheting, CEL oldSelf). Repeatable' -r -F
complete -c crdlint -n "__fish_crdlint_using_subcommand check" -l exclude -d 'Leave out paths matching GLOB (gitignore syntax; repeatable)' -r
complete -c crdlint -n "__fish_crdlint_using_subcommand check" -s o -l output -d 'Output format' -r -f -a "human\t'Graphical report with source snippets'
short\t'One line per finding: path:line:col: severity[code]: message'
json\t'One JSON object (see docs/usage.md for the contract)'
sarif\t'SARIF 2.1.0, for GitHub code scanning and other SARIF viewers'
github\t'GitHub Actions workflow commands: annotations on the pull request'"
complete -c crdlint -n "__fish_crdlint_using_subcommand check" -l color -d 'When to use colour' -r -f -a "auto\t'Colour when stdout is a terminal and NO_COLOR is unset'
always\t''
never\t''"
complete -c crdlint -n "__fish_crdlint_using_subcommand check" -l missing-crd -d 'Severity of documents whose kind no CRD in the run defines [default: warn]' -r -f -a "error\t''
warn\t''
ignore\t''"
complete -c crdlint -n "__fish_crdlint_using_subcommand check" -l kube-version -d 'Follow the API server of this Kubernetes version (e.g. 1.35) [default: the newest crdlint knows]' -r
complete -c crdlint -n "__fish_crdlint_using_subcommand check" -l unknown-fields -d 'Fields of custom resources that no schema declares: rejected (`error`, like kubectl\'s --validate=strict), `warn`, or dropped silently (`ignore`) [default: error]' -r -f -a "error\t''
warn\t''
ignore\t''"
complete -c crdlint -n "__fish_crdlint_using_subcommand check" -l config -d 'Read settings from this file instead of looking for .crdlint.yaml' -r -F
complete -c crdlint -n "__fish_crdlint_using_subcommand check" -l max-file-size -d 'Refuse files larger than this many bytes' -r
complete -c crdlint -n "__fish_crdlint_using_subcommand check" -l max-depth -d 'Refuse documents nested deeper than this' -r
complete -c crdlint -n "__fish_crdlint_using_subcommand check" -l max-regex-size -d 'Budget for matching one regular expression (`pattern`, CEL `matches`), in MiB of compiled program. A pattern the server accepts but that needs more (large repeats of Unicode classes) is reported as not evaluated' -r
complete -c crdlint -n "__fish_crdlint_using_subcommand check" -l max-alias-nodes -d 'Refuse documents whose aliases expand to more nodes than this' -r
complete -c crdlint -n "__fish_crdlint_using_subcommand check" -l no-ignore -d 'Do not honour .gitignore and .ignore files'
complete -c crdlint -n "__fish_crdlint_using_subcommand check" -l no-config -d 'Do not read any configuration file'
complete -c crdlint -n "__fish_crdlint_using_subcommand check" -l warnings-as-errors -d 'Exit with status 1 on warnings too'
complete -c crdlint -n "__fish_crdlint_using_subcommand check" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c crdlint -n "__fish_crdlint_using_subcommand check" -s V -l version -d 'Print version'
complete -c crdlint -n "__fish_crdlint_using_subcommand dry-run" -l crd -l crds -d 'Load CRDs from PATH (repeatable)' -r -F
complete -c crdlint -n "__fish_crdlint_using_subcommand dry-run" -l old -d 'Objects as currently stored (e.g. the previous revision of the manifests): a custom resource with the same API group, kind, namespace and name (in any version) is stored as an update of it (status and generation from the old object, ratcheting). Repeatable' -r -F
complete -c crdlint -n "__fish_crdlint_using_subcommand dry-run" -s o -l output -d 'Output format of the stored objects (several objects become a v1 List)' -r -f -a "yaml\t''
json\t''"
complete -c crdlint -n "__fish_crdlint_using_subcommand dry-run" -l color -d 'When to use colour (diff and findings)' -r -f -a "auto\t'Colour when stdout is a terminal and NO_COLOR is unset'
always\t''
never\t''"
complete -c crdlint -n "__fish_crdlint_using_subcommand dry-run" -l kube-version -d 'Kubernetes version whose CEL libraries are available (e.g. 1.30)' -r
complete -c crdlint -n "__fish_crdlint_using_subcommand dry-run" -l diff -d 'Show a unified diff from each object as written to the object as stored'
complete -c crdlint -n "__fish_crdlint_using_subcommand dry-run" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c crdlint -n "__fish_crdlint_using_subcommand dry-run" -s V -l version -d 'Print version'
complete -c crdlint -n "__fish_crdlint_using_subcommand cost" -s o -l output -d 'Output format' -r -f -a "human\t'A table per CRD, worst rules first, with fixes'
json\t'One JSON object'"
complete -c crdlint -n "__fish_crdlint_using_subcommand cost" -l near -d 'Also suggest bounds for rules whose estimate is at least this share of the per-rule limit (for example 0.5); their target is that share' -r
complete -c crdlint -n "__fish_crdlint_using_subcommand cost" -l kube-version -d 'Kubernetes version whose CEL environment compiles the rules' -r
complete -c crdlint -n "__fish_crdlint_using_subcommand cost" -l color -d 'When to use colour' -r -f -a "auto\t'Colour when stdout is a terminal and NO_COLOR is unset'
always\t''
never\t''"
complete -c crdlint -n "__fish_crdlint_using_subcommand cost" -l exclude -d 'Leave out paths matching GLOB (gitignore syntax; repeatable)' -r
complete -c crdlint -n "__fish_crdlint_using_subcommand cost" -l max-file-size -d 'Refuse files larger than this many bytes' -r
complete -c crdlint -n "__fish_crdlint_using_subcommand cost" -l no-ignore -d 'Do not honour .gitignore and .ignore files'
complete -c crdlint -n "__fish_crdlint_using_subcommand cost" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c crdlint -n "__fish_crdlint_using_subcommand cost" -s V -l version -d 'Print version'
complete -c crdlint -n "__fish_crdlint_using_subcommand rules" -s o -l output -d 'Output format' -r -f -a "text\t'A table, or the page as Markdown'
json\t'JSON: `{"version": 1, "rules": [...]}`, or one rule with its `documentation`'"
complete -c crdlint -n "__fish_crdlint_using_subcommand rules" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c crdlint -n "__fish_crdlint_using_subcommand rules" -s V -l version -d 'Print version'
complete -c crdlint -n "__fish_crdlint_using_subcommand explain" -l crds -l crd -d 'Read CRDs from PATH (file or directory; repeatable)' -r -F
complete -c crdlint -n "__fish_crdlint_using_subcommand explain" -l api-version -d 'Pick the group and/or version: `GROUP/VERSION` or `VERSION` [default: the highest-priority served version]' -r
complete -c crdlint -n "__fish_crdlint_using_subcommand explain" -l config -d 'Read settings from this file instead of looking for .crdlint.yaml' -r -F
complete -c crdlint -n "__fish_crdlint_using_subcommand explain" -s r -l recursive -d 'Print every field below, as a tree of names and types'
complete -c crdlint -n "__fish_crdlint_using_subcommand explain" -l no-config -d 'Do not read any configuration file'
complete -c crdlint -n "__fish_crdlint_using_subcommand explain" -s h -l help -d 'Print help'
complete -c crdlint -n "__fish_crdlint_using_subcommand explain" -s V -l version -d 'Print version'
complete -c crdlint -n "__fish_crdlint_using_subcommand completions" -s h -l help -d 'Print help'
complete -c crdlint -n "__fish_crdlint_using_subcommand completions" -s V -l version -d 'Print version'
complete -c crdlint -n "__fish_crdlint_using_subcommand help; and not __fish_seen_subcommand_from check dry-run cost rules explain completions help" -f -a "check" -d 'Check CRDs and custom resources for everything the API server would reject'
complete -c crdlint -n "__fish_crdlint_using_subcommand help; and not __fish_seen_subcommand_from check dry-run cost rules explain completions help" -f -a "dry-run" -d 'Print custom resources as the API server would store them: pruned, defaulted, in the storage version'
complete -c crdlint -n "__fish_crdlint_using_subcommand help; and not __fish_seen_subcommand_from check dry-run cost rules explain completions help" -f -a "cost" -d 'Show the API server\'s estimated CEL cost of every rule, and bounds that fix breaches'
complete -c crdlint -n "__fish_crdlint_using_subcommand help; and not __fish_seen_subcommand_from check dry-run cost rules explain completions help" -f -a "rules" -d 'List the diagnostic codes, or print the documentation of one'
complete -c crdlint -n "__fish_crdlint_using_subcommand help; and not __fish_seen_subcommand_from check dry-run cost rules explain completions help" -f -a "explain" -d 'Describe the fields of a custom resource from local CRDs, like `kubectl explain`'
complete -c crdlint -n "__fish_crdlint_using_subcommand help; and not __fish_seen_subcommand_from check dry-run cost rules explain completions help" -f -a "completions" -d 'Print a shell completion script (bash, zsh, fish, powershell, elvish)'
complete -c crdlint -n "__fish_crdlint_using_subcommand help; and not __fish_seen_subcommand_from check dry-run cost rules explain completions help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'

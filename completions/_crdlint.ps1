
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'crdlint' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'crdlint'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'crdlint' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Check CRDs and custom resources for everything the API server would reject')
            [CompletionResult]::new('dry-run', 'dry-run', [CompletionResultType]::ParameterValue, 'Print custom resources as the API server would store them: pruned, defaulted, in the storage version')
            [CompletionResult]::new('cost', 'cost', [CompletionResultType]::ParameterValue, 'Show the API server''s estimated CEL cost of every rule, and bounds that fix breaches')
            [CompletionResult]::new('rules', 'rules', [CompletionResultType]::ParameterValue, 'List the diagnostic codes, or print the documentation of one')
            [CompletionResult]::new('explain', 'explain', [CompletionResultType]::ParameterValue, 'Describe the fields of a custom resource from local CRDs, like `kubectl explain`')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script (bash, zsh, fish, powershell, elvish)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'crdlint;check' {
            [CompletionResult]::new('--crds', '--crds', [CompletionResultType]::ParameterName, 'Load CRDs from PATH to resolve custom resources, without reporting on them')
            [CompletionResult]::new('--crd', '--crd', [CompletionResultType]::ParameterName, 'Load CRDs from PATH to resolve custom resources, without reporting on them')
            [CompletionResult]::new('--old', '--old', [CompletionResultType]::ParameterName, 'Objects as currently stored (e.g. the previous revision of the manifests): a custom resource with the same API group, kind, namespace and name (in any version) is checked as an update of it (metadata update rules, ratcheting, CEL oldSelf). Repeatable')
            [CompletionResult]::new('--exclude', '--exclude', [CompletionResultType]::ParameterName, 'Leave out paths matching GLOB (gitignore syntax; repeatable)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--missing-crd', '--missing-crd', [CompletionResultType]::ParameterName, 'Severity of documents whose kind no CRD in the run defines [default: warn]')
            [CompletionResult]::new('--kube-version', '--kube-version', [CompletionResultType]::ParameterName, 'Follow the API server of this Kubernetes version (e.g. 1.35) [default: the newest crdlint knows]')
            [CompletionResult]::new('--unknown-fields', '--unknown-fields', [CompletionResultType]::ParameterName, 'Fields of custom resources that no schema declares: rejected (`error`, like kubectl''s --validate=strict), `warn`, or dropped silently (`ignore`) [default: error]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Read settings from this file instead of looking for .crdlint.yaml')
            [CompletionResult]::new('--max-file-size', '--max-file-size', [CompletionResultType]::ParameterName, 'Refuse files larger than this many bytes')
            [CompletionResult]::new('--max-depth', '--max-depth', [CompletionResultType]::ParameterName, 'Refuse documents nested deeper than this')
            [CompletionResult]::new('--max-regex-size', '--max-regex-size', [CompletionResultType]::ParameterName, 'Budget for matching one regular expression (`pattern`, CEL `matches`), in MiB of compiled program. A pattern the server accepts but that needs more (large repeats of Unicode classes) is reported as not evaluated')
            [CompletionResult]::new('--max-alias-nodes', '--max-alias-nodes', [CompletionResultType]::ParameterName, 'Refuse documents whose aliases expand to more nodes than this')
            [CompletionResult]::new('--no-ignore', '--no-ignore', [CompletionResultType]::ParameterName, 'Do not honour .gitignore and .ignore files')
            [CompletionResult]::new('--no-config', '--no-config', [CompletionResultType]::ParameterName, 'Do not read any configuration file')
            [CompletionResult]::new('--warnings-as-errors', '--warnings-as-errors', [CompletionResultType]::ParameterName, 'Exit with status 1 on warnings too')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'crdlint;dry-run' {
            [CompletionResult]::new('--crd', '--crd', [CompletionResultType]::ParameterName, 'Load CRDs from PATH (repeatable)')
            [CompletionResult]::new('--crds', '--crds', [CompletionResultType]::ParameterName, 'Load CRDs from PATH (repeatable)')
            [CompletionResult]::new('--old', '--old', [CompletionResultType]::ParameterName, 'Objects as currently stored (e.g. the previous revision of the manifests): a custom resource with the same API group, kind, namespace and name (in any version) is stored as an update of it (status and generation from the old object, ratcheting). Repeatable')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format of the stored objects (several objects become a v1 List)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format of the stored objects (several objects become a v1 List)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (diff and findings)')
            [CompletionResult]::new('--kube-version', '--kube-version', [CompletionResultType]::ParameterName, 'Kubernetes version whose CEL libraries are available (e.g. 1.30)')
            [CompletionResult]::new('--diff', '--diff', [CompletionResultType]::ParameterName, 'Show a unified diff from each object as written to the object as stored')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'crdlint;cost' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--near', '--near', [CompletionResultType]::ParameterName, 'Also suggest bounds for rules whose estimate is at least this share of the per-rule limit (for example 0.5); their target is that share')
            [CompletionResult]::new('--kube-version', '--kube-version', [CompletionResultType]::ParameterName, 'Kubernetes version whose CEL environment compiles the rules')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--exclude', '--exclude', [CompletionResultType]::ParameterName, 'Leave out paths matching GLOB (gitignore syntax; repeatable)')
            [CompletionResult]::new('--max-file-size', '--max-file-size', [CompletionResultType]::ParameterName, 'Refuse files larger than this many bytes')
            [CompletionResult]::new('--no-ignore', '--no-ignore', [CompletionResultType]::ParameterName, 'Do not honour .gitignore and .ignore files')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'crdlint;rules' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'crdlint;explain' {
            [CompletionResult]::new('--crds', '--crds', [CompletionResultType]::ParameterName, 'Read CRDs from PATH (file or directory; repeatable)')
            [CompletionResult]::new('--crd', '--crd', [CompletionResultType]::ParameterName, 'Read CRDs from PATH (file or directory; repeatable)')
            [CompletionResult]::new('--api-version', '--api-version', [CompletionResultType]::ParameterName, 'Pick the group and/or version: `GROUP/VERSION` or `VERSION` [default: the highest-priority served version]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Read settings from this file instead of looking for .crdlint.yaml')
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'Print every field below, as a tree of names and types')
            [CompletionResult]::new('--recursive', '--recursive', [CompletionResultType]::ParameterName, 'Print every field below, as a tree of names and types')
            [CompletionResult]::new('--no-config', '--no-config', [CompletionResultType]::ParameterName, 'Do not read any configuration file')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'crdlint;completions' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'crdlint;help' {
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Check CRDs and custom resources for everything the API server would reject')
            [CompletionResult]::new('dry-run', 'dry-run', [CompletionResultType]::ParameterValue, 'Print custom resources as the API server would store them: pruned, defaulted, in the storage version')
            [CompletionResult]::new('cost', 'cost', [CompletionResultType]::ParameterValue, 'Show the API server''s estimated CEL cost of every rule, and bounds that fix breaches')
            [CompletionResult]::new('rules', 'rules', [CompletionResultType]::ParameterValue, 'List the diagnostic codes, or print the documentation of one')
            [CompletionResult]::new('explain', 'explain', [CompletionResultType]::ParameterValue, 'Describe the fields of a custom resource from local CRDs, like `kubectl explain`')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script (bash, zsh, fish, powershell, elvish)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'crdlint;help;check' {
            break
        }
        'crdlint;help;dry-run' {
            break
        }
        'crdlint;help;cost' {
            break
        }
        'crdlint;help;rules' {
            break
        }
        'crdlint;help;explain' {
            break
        }
        'crdlint;help;completions' {
            break
        }
        'crdlint;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}

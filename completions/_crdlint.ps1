
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
            [CompletionResult]::new('rules', 'rules', [CompletionResultType]::ParameterValue, 'List the diagnostic codes, or print the documentation of one')
            [CompletionResult]::new('explain', 'explain', [CompletionResultType]::ParameterValue, 'Describe the fields of a custom resource from local CRDs, like `kubectl explain`')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script (bash, zsh, fish, powershell, elvish)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'crdlint;check' {
            [CompletionResult]::new('--crds', '--crds', [CompletionResultType]::ParameterName, 'Load CRDs from PATH to resolve custom resources, without reporting on them')
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
            [CompletionResult]::new('rules', 'rules', [CompletionResultType]::ParameterValue, 'List the diagnostic codes, or print the documentation of one')
            [CompletionResult]::new('explain', 'explain', [CompletionResultType]::ParameterValue, 'Describe the fields of a custom resource from local CRDs, like `kubectl explain`')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script (bash, zsh, fish, powershell, elvish)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'crdlint;help;check' {
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

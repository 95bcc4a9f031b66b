
use builtin;
use str;

set edit:completion:arg-completer[crdlint] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'crdlint'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'crdlint'= {
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand check 'Check CRDs and custom resources for everything the API server would reject'
            cand dry-run 'Print custom resources as the API server would store them: pruned, defaulted, in the storage version'
            cand cost 'Show the API server''s estimated CEL cost of every rule, and bounds that fix breaches'
            cand rules 'List the diagnostic codes, or print the documentation of one'
            cand explain 'Describe the fields of a custom resource from local CRDs, like `kubectl explain`'
            cand completions 'Print a shell completion script (bash, zsh, fish, powershell, elvish)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'crdlint;check'= {
            cand --crds 'Load CRDs from PATH to resolve custom resources, without reporting on them'
            cand --crd 'Load CRDs from PATH to resolve custom resources, without reporting on them'
            cand --old 'Objects as currently stored (e.g. the previous revision of the manifests): a custom resource with the same API group, kind, namespace and name (in any version) is checked as an update of it (metadata update rules, ratcheting, CEL oldSelf). Repeatable'
            cand --exclude 'Leave out paths matching GLOB (gitignore syntax; repeatable)'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --color 'When to use colour'
            cand --missing-crd 'Severity of documents whose kind no CRD in the run defines [default: warn]'
            cand --kube-version 'Follow the API server of this Kubernetes version (e.g. 1.35) [default: the newest crdlint knows]'
            cand --unknown-fields 'Fields of custom resources that no schema declares: rejected (`error`, like kubectl''s --validate=strict), `warn`, or dropped silently (`ignore`) [default: error]'
            cand --config 'Read settings from this file instead of looking for .crdlint.yaml'
            cand --max-file-size 'Refuse files larger than this many bytes'
            cand --max-depth 'Refuse documents nested deeper than this'
            cand --max-regex-size 'Budget for matching one regular expression (`pattern`, CEL `matches`), in MiB of compiled program. A pattern the server accepts but that needs more (large repeats of Unicode classes) is reported as not evaluated'
            cand --max-alias-nodes 'Refuse documents whose aliases expand to more nodes than this'
            cand --no-ignore 'Do not honour .gitignore and .ignore files'
            cand --no-config 'Do not read any configuration file'
            cand --warnings-as-errors 'Exit with status 1 on warnings too'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'crdlint;dry-run'= {
            cand --crd 'Load CRDs from PATH (repeatable)'
            cand --crds 'Load CRDs from PATH (repeatable)'
            cand --old 'Objects as currently stored (e.g. the previous revision of the manifests): a custom resource with the same API group, kind, namespace and name (in any version) is stored as an update of it (status and generation from the old object, ratcheting). Repeatable'
            cand -o 'Output format of the stored objects (several objects become a v1 List)'
            cand --output 'Output format of the stored objects (several objects become a v1 List)'
            cand --color 'When to use colour (diff and findings)'
            cand --kube-version 'Kubernetes version whose CEL libraries are available (e.g. 1.30)'
            cand --diff 'Show a unified diff from each object as written to the object as stored'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'crdlint;cost'= {
            cand -o 'Output format'
            cand --output 'Output format'
            cand --near 'Also suggest bounds for rules whose estimate is at least this share of the per-rule limit (for example 0.5); their target is that share'
            cand --kube-version 'Kubernetes version whose CEL environment compiles the rules'
            cand --color 'When to use colour'
            cand --exclude 'Leave out paths matching GLOB (gitignore syntax; repeatable)'
            cand --max-file-size 'Refuse files larger than this many bytes'
            cand --no-ignore 'Do not honour .gitignore and .ignore files'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'crdlint;rules'= {
            cand -o 'Output format'
            cand --output 'Output format'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'crdlint;explain'= {
            cand --crds 'Read CRDs from PATH (file or directory; repeatable)'
            cand --crd 'Read CRDs from PATH (file or directory; repeatable)'
            cand --api-version 'Pick the group and/or version: `GROUP/VERSION` or `VERSION` [default: the highest-priority served version]'
            cand --config 'Read settings from this file instead of looking for .crdlint.yaml'
            cand -r 'Print every field below, as a tree of names and types'
            cand --recursive 'Print every field below, as a tree of names and types'
            cand --no-config 'Do not read any configuration file'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'crdlint;completions'= {
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'crdlint;help'= {
            cand check 'Check CRDs and custom resources for everything the API server would reject'
            cand dry-run 'Print custom resources as the API server would store them: pruned, defaulted, in the storage version'
            cand cost 'Show the API server''s estimated CEL cost of every rule, and bounds that fix breaches'
            cand rules 'List the diagnostic codes, or print the documentation of one'
            cand explain 'Describe the fields of a custom resource from local CRDs, like `kubectl explain`'
            cand completions 'Print a shell completion script (bash, zsh, fish, powershell, elvish)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'crdlint;help;check'= {
        }
        &'crdlint;help;dry-run'= {
        }
        &'crdlint;help;cost'= {
        }
        &'crdlint;help;rules'= {
        }
        &'crdlint;help;explain'= {
        }
        &'crdlint;help;completions'= {
        }
        &'crdlint;help;help'= {
        }
    ]
    $completions[$command]
}

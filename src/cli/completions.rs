//! `crdlint completions SHELL`: a completion script generated from the clap definition.
//! The scripts in completions/ are this output, kept fresh by a test.

use clap::{Args, CommandFactory};
use clap_complete::Shell;

use super::Cli;

#[derive(Args, Debug)]
#[command(
    after_help = "Examples:\n  crdlint completions bash > ~/.local/share/bash-completion/completions/crdlint\n  crdlint completions zsh > ~/.zfunc/_crdlint        (with fpath+=~/.zfunc before compinit)\n  crdlint completions fish > ~/.config/fish/completions/crdlint.fish\n  crdlint completions powershell >> $PROFILE\n  crdlint completions elvish >> ~/.config/elvish/rc.elv"
)]
pub struct CompletionsArgs {
    /// The shell to generate the script for.
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: Shell,
}

/// The completion script for `shell`.
pub fn script(shell: Shell) -> Vec<u8> {
    let mut command = Cli::command();
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut command, "crdlint", &mut out);
    out
}

pub fn run(args: &CompletionsArgs) -> u8 {
    super::print_all(&script(args.shell))
}

use super::*;
use clap::CommandFactory;

/// Parses a command line after the program's name.
fn parse(words: &[&str]) -> Arguments {
    let line = std::iter::once("supernova").chain(words.iter().copied());
    Arguments::try_parse_words(line).unwrap_or_else(|error| panic!("{words:?}: {error}"))
}

/// The arguments of a `match` command line.
fn match_arguments(words: &[&str]) -> MatchArguments {
    let mut line = vec!["match"];
    line.extend_from_slice(words);
    match parse(&line).command {
        Some(Command::Match(arguments)) => arguments,
        _ => panic!("not a match: {words:?}"),
    }
}

#[test]
fn each_engine_keeps_its_own_words() {
    let arguments = match_arguments(&[
        "--engine", "cmd=a", "arg=x", "--engine", "name=b", "--nodes", "5",
    ]);
    assert_eq!(
        arguments.engines,
        vec![
            vec!["cmd=a".to_string(), "arg=x".to_string()],
            vec!["name=b".to_string()]
        ]
    );
    let config = arguments.two_player_config().unwrap();
    assert_eq!(config.limits.nodes, Some(5));
    assert_eq!(config.games, 2 * config.openings.len());
}

#[test]
fn two_player_settings_are_checked() {
    let refused = |words: &[&str]| match_arguments(words).two_player_config().unwrap_err();
    assert!(refused(&["--engine", "name=a", "--nodes", "5"]).starts_with("--engine given 1 times"));
    assert!(
        refused(&["--engine", "a=", "--engine", "b=", "--victory", "last"])
            .starts_with("--victory: only")
    );
    assert!(refused(&["--engine", "name=a", "--engine", "name=b"]).starts_with("no turn limit"));
    let words = ["--engine", "name=a", "--engine", "name=b", "--nodes", "5"];
    let mut arguments = match_arguments(&words);
    arguments.repetitions = 1;
    assert_eq!(
        arguments.two_player_config().unwrap_err(),
        "--repetitions: expected 2 or more"
    );
}

#[test]
fn several_players_have_their_own_settings() {
    let engines = [
        "--engine", "name=a", "--engine", "name=b", "--engine", "name=c",
    ];
    let mut words = engines.to_vec();
    words.extend(["--nodes", "5", "--max-turns", "0"]);
    let config = match_arguments(&words).multi_player_config().unwrap();
    assert_eq!(config.engines.len(), 3);
    assert_eq!((config.games, config.max_turns), (30, u32::MAX));
    assert_eq!(
        config.victory,
        crate::rules::multi::Victory::LastManStanding
    );
    let mut words = engines.to_vec();
    words.extend(["--sprt", "elo0=0", "elo1=5", "alpha=0.05", "beta=0.05"]);
    assert!(match_arguments(&words)
        .multi_player_config()
        .unwrap_err()
        .contains("two-engine matches only"));
}

#[test]
fn training_fractions_are_checked() {
    let config = |words: &[&str]| {
        let mut line = vec!["train"];
        line.extend_from_slice(words);
        match parse(&line).command {
            Some(Command::Train(arguments)) => arguments.config(),
            _ => panic!("not train"),
        }
    };
    assert!(config(&["--result-weight", "2"])
        .unwrap_err()
        .starts_with("--result-weight 2"));
    assert!(config(&["--discount", "0"])
        .unwrap_err()
        .starts_with("--discount 0"));
    let config = config(&["--hidden", "0", "--games", "0"]).unwrap();
    assert_eq!((config.hidden, config.games), (1, 1));
}

#[test]
fn count_reads_either_notation_and_its_side() {
    let run = |words: &[&str]| {
        let mut line = vec!["count"];
        line.extend_from_slice(words);
        let Some(Command::Count(arguments)) = parse(&line).command else {
            panic!("not count");
        };
        let mut out = Vec::new();
        arguments
            .run(&mut out)
            .map(|()| String::from_utf8(out).unwrap())
    };
    let start = run(&["startpos"]).unwrap();
    assert!(start.trim().parse::<u64>().unwrap() > 0, "{start}");
    match run(&["--side", "2", "startpos"]) {
        Err(Failure::Error(message)) => assert_eq!(message, "--side 2: expected 0 or 1"),
        _ => panic!("side 2 accepted"),
    }
    match run(&["not a position"]) {
        Err(Failure::Error(message)) => assert!(message.starts_with("bad position: "), "{message}"),
        _ => panic!("bad position accepted"),
    }
}

#[test]
fn help_names_no_issue_numbers() {
    let mut command = Arguments::command();
    let mut texts = vec![command.render_long_help().to_string()];
    for subcommand in command.get_subcommands_mut() {
        texts.push(subcommand.render_long_help().to_string());
    }
    assert!(texts.len() > 16);
    for text in texts {
        assert!(!text.to_lowercase().contains("issue "), "{text}");
    }
}

function __firn_should_offer_completions_for_flags_or_options -a expected_commands
    set -l non_repeating_flags_or_options $argv[2..]
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __firn_parse_tokens
    test "$commands" = "$expected_commands"; and return $non_repeating_flags_or_options_absent
end

function __firn_should_offer_completions_for_positional -a expected_commands positional_index_comparison expected_positional_index
    set -l non_repeating_flags_or_options
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __firn_parse_tokens
    test "$commands" = "$expected_commands" -a \( "$positional_index" "$positional_index_comparison" "$expected_positional_index" \)
end

function __firn_parse_tokens -S
    set -l unparsed_tokens (__firn_tokens -pc)
    switch $unparsed_tokens[1]
    case 'firn'
        __firn_parse_subcommand 0 'h/help'
        switch $unparsed_tokens[1]
        case 'info'
            __firn_parse_subcommand 1 'json' 'progress' 'no-progress' 'lock-timeout=' 'h/help'
        case 'versions'
            __firn_parse_subcommand 1 'json' 'progress' 'no-progress' 'lock-timeout=' 'h/help'
        case 'pins' 'readers'
            __firn_parse_subcommand 1 'clear-stale' 'max-lag=' 'max-age=' 'max-retained=' 'include-stale' 'json' 'progress' 'no-progress' 'lock-timeout=' 'h/help'
        case 'growth'
            __firn_parse_subcommand 1 'svg=' 'csv' 'width=' 'json' 'progress' 'no-progress' 'lock-timeout=' 'h/help'
        case 'dump'
            __firn_parse_subcommand 1 'version=' 'tree=' 'pages' 'page=' 'entries' 'hex' 'objects' 'type=' 'from=' 'to=' 'limit=' 'json' 'progress' 'no-progress' 'lock-timeout=' 'h/help'
        case 'get'
            __firn_parse_subcommand 3 'version=' 'hex' 'json' 'progress' 'no-progress' 'lock-timeout=' 'h/help'
        case 'load'
            __firn_parse_subcommand 1 'input=' 'tree=' 'batch=' 'json' 'progress' 'no-progress' 'lock-timeout=' 'h/help'
        case 'verify'
            __firn_parse_subcommand 1 'version=' 'quick' 'max-errors=' 'json' 'progress' 'no-progress' 'lock-timeout=' 'h/help'
        case 'metrics'
            __firn_parse_subcommand -r 1 'verify' 'json' 'progress' 'no-progress' 'lock-timeout=' 'h/help'
        case 'checkpoint'
            __firn_parse_subcommand 1 'json' 'progress' 'no-progress' 'lock-timeout=' 'h/help'
        case 'compact'
            __firn_parse_subcommand 1 'o/output=' 'version=' 'if-free-over=' 'dry-run' 'force' 'json' 'progress' 'no-progress' 'lock-timeout=' 'h/help'
        case 'export'
            __firn_parse_subcommand 1 'o/output=' 'version=' 'level=' 'force' 'json' 'progress' 'no-progress' 'lock-timeout=' 'h/help'
        case 'import'
            __firn_parse_subcommand 1 'o/output=' 'force' 'json' 'progress' 'no-progress' 'lock-timeout=' 'h/help'
        case 'hold'
            __firn_parse_subcommand 1 'seconds=' 'label=' 'version=' 'kind=' 'json' 'progress' 'no-progress' 'lock-timeout=' 'h/help'
        case 'demo'
            __firn_parse_subcommand 1 'json' 'progress' 'no-progress' 'lock-timeout=' 'h/help'
        case 'help'
            __firn_parse_subcommand -r 1 
        end
    end
end

function __firn_tokens
    if test (string split -m 1 -f 1 -- . "$FISH_VERSION") -gt 3
        commandline --tokens-raw $argv
    else
        commandline -o $argv
    end
end

function __firn_parse_subcommand -S -a positional_count
    argparse -s r -- $argv
    set -l option_specs $argv[2..]
    set -l is_repeating_positional $_flag_r
    set -el _flag_r
    set -a commands $unparsed_tokens[1]
    set positional_index 0
    while true
        set -e unparsed_tokens[1]
        argparse -sn "$commands" $option_specs -- $unparsed_tokens 2> /dev/null
        set unparsed_tokens $argv
        set positional_index (math $positional_index + 1)
        for non_repeating_flag_or_option in $non_repeating_flags_or_options
            if set -ql "_flag_$(string replace -a - _ -- $non_repeating_flag_or_option)"
                set non_repeating_flags_or_options_absent 1
                break
            end
        end
        test (count $unparsed_tokens) -eq 0 -o \( -z "$is_repeating_positional" -a "$positional_index" -gt "$positional_count" \) && break
    end
end

function __firn_complete_directories
    set -l token (commandline -t)
    string match -- '*/' $token
    set -l subdirs $token*/
    printf %s\n $subdirs
end

function __firn_custom_completion
    set -x SAP_SHELL fish
    set -x SAP_SHELL_VERSION $FISH_VERSION
    set -l tokens (__firn_tokens -p)
    if test -z "$(__firn_tokens -t)"
        set -l index (count (__firn_tokens -pc))
        set tokens $tokens[..$index] \'\' $tokens[(math $index + 1)..]
    end
    command $tokens[1] $argv $tokens
end

complete -c 'firn' -f
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'firn' -n '__firn_should_offer_completions_for_positional "firn" -eq 1' -fa 'info' -d 'Show format, commit slots, space use (live, free, held by pins) and trees.'
complete -c 'firn' -n '__firn_should_offer_completions_for_positional "firn" -eq 1' -fa 'versions' -d 'List every readable version: current, durable, previous slot, and each pinned version with its holders.'
complete -c 'firn' -n '__firn_should_offer_completions_for_positional "firn" -eq 1' -fa 'pins' -d 'Show the reader table: who pins which version, lag, age, frozen objects, bytes retained.'
complete -c 'firn' -n '__firn_should_offer_completions_for_positional "firn" -eq 1' -fa 'readers' -d 'Show the reader table: who pins which version, lag, age, frozen objects, bytes retained.'
complete -c 'firn' -n '__firn_should_offer_completions_for_positional "firn" -eq 1' -fa 'growth' -d 'Chart file size, live, free and held-by-pins bytes over the recorded commits, and explain the growth.'
complete -c 'firn' -n '__firn_should_offer_completions_for_positional "firn" -eq 1' -fa 'dump' -d 'Show the B+ trees of a readable version: levels, pages, one decoded page, every entry, or its objects.'
complete -c 'firn' -n '__firn_should_offer_completions_for_positional "firn" -eq 1' -fa 'get' -d 'Print one key\'s value: exit 0 with the value on stdout, exit 1 when the key is absent.'
complete -c 'firn' -n '__firn_should_offer_completions_for_positional "firn" -eq 1' -fa 'load' -d 'Load entries in the `firn dump --entries` format into a database (created when missing).'
complete -c 'firn' -n '__firn_should_offer_completions_for_positional "firn" -eq 1' -fa 'verify' -d 'Prove a version intact: slots, checksums and births from the slot down, tree invariants, space accounting.'
complete -c 'firn' -n '__firn_should_offer_completions_for_positional "firn" -eq 1' -fa 'metrics' -d 'Print what a monitor watches of each file in the Prometheus text format (node_exporter\'s textfile collector).'
complete -c 'firn' -n '__firn_should_offer_completions_for_positional "firn" -eq 1' -fa 'checkpoint' -d 'Write the commit log\'s changes into the trees (a checkpoint), so the pages they replaced can be reused.'
complete -c 'firn' -n '__firn_should_offer_completions_for_positional "firn" -eq 1' -fa 'compact' -d 'Write a packed copy of a version (-o), or compact the file in place when nobody else has it open.'
complete -c 'firn' -n '__firn_should_offer_completions_for_positional "firn" -eq 1' -fa 'export' -d 'Write a hot, consistent snapshot of a version as one standard LZ4 frame (`lz4 -d` gives a Firn file).'
complete -c 'firn' -n '__firn_should_offer_completions_for_positional "firn" -eq 1' -fa 'import' -d 'Decompress and verify a snapshot, then atomically create the database file.'
complete -c 'firn' -n '__firn_should_offer_completions_for_positional "firn" -eq 1' -fa 'hold' -d 'Pin a version until interrupted or --seconds pass (to reproduce growth and test pin alerts).'
complete -c 'firn' -n '__firn_should_offer_completions_for_positional "firn" -eq 1' -fa 'demo' -d 'Build DIR/demo.firn with the SDK, cache frozen objects of an early version in a second process, and tour the other commands on it.'
complete -c 'firn' -n '__firn_should_offer_completions_for_positional "firn" -eq 1' -fa 'help' -d 'Show subcommand help information.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn info" json' -l 'json' -d 'Print the report as JSON with stable keys on stdout.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn info" progress' -l 'progress' -d 'Show progress on stderr even when it is not a terminal (default: only when it is).'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn info" no-progress' -l 'no-progress' -d 'Show no progress, even when stderr is a terminal.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn info" lock-timeout' -l 'lock-timeout' -d 'Wait at most this many seconds (0…86400) for a lock, then exit 75 (default: 30 for the writer lock, 0 for exclusivity).' -rfka ''
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn info" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn versions" json' -l 'json' -d 'Print the report as JSON with stable keys on stdout.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn versions" progress' -l 'progress' -d 'Show progress on stderr even when it is not a terminal (default: only when it is).'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn versions" no-progress' -l 'no-progress' -d 'Show no progress, even when stderr is a terminal.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn versions" lock-timeout' -l 'lock-timeout' -d 'Wait at most this many seconds (0…86400) for a lock, then exit 75 (default: 30 for the writer lock, 0 for exclusivity).' -rfka ''
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn versions" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn pins" clear-stale' -l 'clear-stale' -d 'Free the reader slots of processes that have exited.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn readers" clear-stale' -l 'clear-stale' -d 'Free the reader slots of processes that have exited.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn pins" max-lag' -l 'max-lag' -d 'Exit 1 when a pin is more than N commits behind.' -rfka ''
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn readers" max-lag' -l 'max-lag' -d 'Exit 1 when a pin is more than N commits behind.' -rfka ''
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn pins" max-age' -l 'max-age' -d 'Exit 1 when a pin is older than this (90s, 15m, 2h, 1d; at most 3650d).' -rfka ''
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn readers" max-age' -l 'max-age' -d 'Exit 1 when a pin is older than this (90s, 15m, 2h, 1d; at most 3650d).' -rfka ''
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn pins" max-retained' -l 'max-retained' -d 'Exit 1 when a pin alone retains more than this (512MiB, 2G; at most 1024TiB).' -rfka ''
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn readers" max-retained' -l 'max-retained' -d 'Exit 1 when a pin alone retains more than this (512MiB, 2G; at most 1024TiB).' -rfka ''
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn pins" include-stale' -l 'include-stale' -d 'Hold the stale pins of exited processes to the thresholds too (default: live pins only).'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn readers" include-stale' -l 'include-stale' -d 'Hold the stale pins of exited processes to the thresholds too (default: live pins only).'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn pins" json' -l 'json' -d 'Print the report as JSON with stable keys on stdout.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn readers" json' -l 'json' -d 'Print the report as JSON with stable keys on stdout.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn pins" progress' -l 'progress' -d 'Show progress on stderr even when it is not a terminal (default: only when it is).'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn readers" progress' -l 'progress' -d 'Show progress on stderr even when it is not a terminal (default: only when it is).'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn pins" no-progress' -l 'no-progress' -d 'Show no progress, even when stderr is a terminal.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn readers" no-progress' -l 'no-progress' -d 'Show no progress, even when stderr is a terminal.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn pins" lock-timeout' -l 'lock-timeout' -d 'Wait at most this many seconds (0…86400) for a lock, then exit 75 (default: 30 for the writer lock, 0 for exclusivity).' -rfka ''
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn readers" lock-timeout' -l 'lock-timeout' -d 'Wait at most this many seconds (0…86400) for a lock, then exit 75 (default: 30 for the writer lock, 0 for exclusivity).' -rfka ''
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn pins" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn readers" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn growth" svg' -l 'svg' -d 'Also write the chart as SVG to this path.' -rfka ''
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn growth" csv' -l 'csv' -d 'Print the history as CSV instead of a chart.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn growth" width' -l 'width' -d 'Chart width in columns (10…400; default: 60).' -rfka ''
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn growth" json' -l 'json' -d 'Print the report as JSON with stable keys on stdout.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn growth" progress' -l 'progress' -d 'Show progress on stderr even when it is not a terminal (default: only when it is).'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn growth" no-progress' -l 'no-progress' -d 'Show no progress, even when stderr is a terminal.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn growth" lock-timeout' -l 'lock-timeout' -d 'Wait at most this many seconds (0…86400) for a lock, then exit 75 (default: 30 for the writer lock, 0 for exclusivity).' -rfka ''
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn growth" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn dump" version' -l 'version' -d 'A readable version (default: the current one).' -rfka ''
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn dump" tree' -l 'tree' -d 'Only this tree; "(catalog)" and "(space)" name the system trees unless a user tree has that name.' -rfka ''
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn dump" pages' -l 'pages' -d 'One line per page.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn dump" page' -l 'page' -d 'Decode one page.' -rfka ''
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn dump" entries' -l 'entries' -d 'Every entry, in the text format `firn load` reads.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn dump" hex' -l 'hex' -d 'With --entries: write keys and values as hex even when printable (and read --from and --to as hex digits).'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn dump" objects' -l 'objects' -d 'The stored objects, decoded with the file\'s schema.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn dump" type' -l 'type' -d 'With --objects: only objects of this type.' -rfka ''
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn dump" from' -l 'from' -d 'With --entries: start at this key (inclusive).' -rfka ''
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn dump" to' -l 'to' -d 'With --entries: stop before this key (exclusive).' -rfka ''
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn dump" limit' -l 'limit' -d 'With --objects: at most N objects per type; with --entries: at most N entries (1…1000000000).' -rfka ''
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn dump" json' -l 'json' -d 'Print the report as JSON with stable keys on stdout.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn dump" progress' -l 'progress' -d 'Show progress on stderr even when it is not a terminal (default: only when it is).'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn dump" no-progress' -l 'no-progress' -d 'Show no progress, even when stderr is a terminal.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn dump" lock-timeout' -l 'lock-timeout' -d 'Wait at most this many seconds (0…86400) for a lock, then exit 75 (default: 30 for the writer lock, 0 for exclusivity).' -rfka ''
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn dump" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn get" version' -l 'version' -d 'A readable version (default: the current one).' -rfka ''
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn get" hex' -l 'hex' -d 'KEY is hex digits, and the value is written as hex digits.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn get" json' -l 'json' -d 'Print the report as JSON with stable keys on stdout.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn get" progress' -l 'progress' -d 'Show progress on stderr even when it is not a terminal (default: only when it is).'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn get" no-progress' -l 'no-progress' -d 'Show no progress, even when stderr is a terminal.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn get" lock-timeout' -l 'lock-timeout' -d 'Wait at most this many seconds (0…86400) for a lock, then exit 75 (default: 30 for the writer lock, 0 for exclusivity).' -rfka ''
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn get" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn load" input' -l 'input' -d 'Read from this file instead of stdin.' -rfka ''
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn load" tree' -l 'tree' -d 'Put every entry into this tree (lines may then be key, value).' -rfka ''
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn load" batch' -l 'batch' -d 'Entries per write transaction (1…10000000; default: 10000).' -rfka ''
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn load" json' -l 'json' -d 'Print the report as JSON with stable keys on stdout.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn load" progress' -l 'progress' -d 'Show progress on stderr even when it is not a terminal (default: only when it is).'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn load" no-progress' -l 'no-progress' -d 'Show no progress, even when stderr is a terminal.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn load" lock-timeout' -l 'lock-timeout' -d 'Wait at most this many seconds (0…86400) for a lock, then exit 75 (default: 30 for the writer lock, 0 for exclusivity).' -rfka ''
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn load" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn verify" version' -l 'version' -d 'A readable version (default: the current one).' -rfka ''
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn verify" quick' -l 'quick' -d 'Skip page checksums (structure and references only).'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn verify" max-errors' -l 'max-errors' -d 'Stop after this many findings (1…1000000; default: 100).' -rfka ''
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn verify" json' -l 'json' -d 'Print the report as JSON with stable keys on stdout.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn verify" progress' -l 'progress' -d 'Show progress on stderr even when it is not a terminal (default: only when it is).'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn verify" no-progress' -l 'no-progress' -d 'Show no progress, even when stderr is a terminal.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn verify" lock-timeout' -l 'lock-timeout' -d 'Wait at most this many seconds (0…86400) for a lock, then exit 75 (default: 30 for the writer lock, 0 for exclusivity).' -rfka ''
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn verify" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn metrics" verify' -l 'verify' -d 'Also verify each file (reads every page) and report the findings and the time it took.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn metrics" json' -l 'json' -d 'Print the report as JSON with stable keys on stdout.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn metrics" progress' -l 'progress' -d 'Show progress on stderr even when it is not a terminal (default: only when it is).'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn metrics" no-progress' -l 'no-progress' -d 'Show no progress, even when stderr is a terminal.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn metrics" lock-timeout' -l 'lock-timeout' -d 'Wait at most this many seconds (0…86400) for a lock, then exit 75 (default: 30 for the writer lock, 0 for exclusivity).' -rfka ''
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn metrics" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn checkpoint" json' -l 'json' -d 'Print the report as JSON with stable keys on stdout.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn checkpoint" progress' -l 'progress' -d 'Show progress on stderr even when it is not a terminal (default: only when it is).'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn checkpoint" no-progress' -l 'no-progress' -d 'Show no progress, even when stderr is a terminal.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn checkpoint" lock-timeout' -l 'lock-timeout' -d 'Wait at most this many seconds (0…86400) for a lock, then exit 75 (default: 30 for the writer lock, 0 for exclusivity).' -rfka ''
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn checkpoint" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn compact" o output' -l 'output' -s 'o' -d 'Write the packed copy here instead of compacting in place.' -rfka ''
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn compact" version' -l 'version' -d 'With -o: a readable version to copy (default: the current one).' -rfka ''
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn compact" if-free-over' -l 'if-free-over' -d 'Compact only when more than this percent (0…100) of the file is reclaimable.' -rfka ''
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn compact" dry-run' -l 'dry-run' -d 'Tell the gain without writing anything.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn compact" force' -l 'force' -d 'With -o: replace an existing output file.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn compact" json' -l 'json' -d 'Print the report as JSON with stable keys on stdout.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn compact" progress' -l 'progress' -d 'Show progress on stderr even when it is not a terminal (default: only when it is).'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn compact" no-progress' -l 'no-progress' -d 'Show no progress, even when stderr is a terminal.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn compact" lock-timeout' -l 'lock-timeout' -d 'Wait at most this many seconds (0…86400) for a lock, then exit 75 (default: 30 for the writer lock, 0 for exclusivity).' -rfka ''
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn compact" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn export" o output' -l 'output' -s 'o' -d 'The snapshot file, or - for stdout.' -rfka ''
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn export" version' -l 'version' -d 'A readable version (default: the current one).' -rfka ''
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn export" level' -l 'level' -d 'LZ4 level: 0 fast (default) … 12 smallest.' -rfka ''
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn export" force' -l 'force' -d 'Replace an existing output file.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn export" json' -l 'json' -d 'Print the report as JSON with stable keys on stdout.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn export" progress' -l 'progress' -d 'Show progress on stderr even when it is not a terminal (default: only when it is).'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn export" no-progress' -l 'no-progress' -d 'Show no progress, even when stderr is a terminal.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn export" lock-timeout' -l 'lock-timeout' -d 'Wait at most this many seconds (0…86400) for a lock, then exit 75 (default: 30 for the writer lock, 0 for exclusivity).' -rfka ''
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn export" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn import" o output' -l 'output' -s 'o' -d 'The database file to create.' -rfka ''
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn import" force' -l 'force' -d 'Replace an existing database (nobody may have it open).'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn import" json' -l 'json' -d 'Print the report as JSON with stable keys on stdout.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn import" progress' -l 'progress' -d 'Show progress on stderr even when it is not a terminal (default: only when it is).'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn import" no-progress' -l 'no-progress' -d 'Show no progress, even when stderr is a terminal.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn import" lock-timeout' -l 'lock-timeout' -d 'Wait at most this many seconds (0…86400) for a lock, then exit 75 (default: 30 for the writer lock, 0 for exclusivity).' -rfka ''
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn import" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn hold" seconds' -l 'seconds' -d 'Release after this many seconds (0…31536000; default: until interrupted).' -rfka ''
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn hold" label' -l 'label' -d 'The pin\'s label, shown by `firn pins`.' -rfka ''
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn hold" version' -l 'version' -d 'A readable version to pin (default: the current one).' -rfka ''
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn hold" kind' -l 'kind' -d 'The pin kind: read, frozen, threadSafeReference, export, compact, tool.' -rfka ''
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn hold" json' -l 'json' -d 'Print the report as JSON with stable keys on stdout.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn hold" progress' -l 'progress' -d 'Show progress on stderr even when it is not a terminal (default: only when it is).'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn hold" no-progress' -l 'no-progress' -d 'Show no progress, even when stderr is a terminal.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn hold" lock-timeout' -l 'lock-timeout' -d 'Wait at most this many seconds (0…86400) for a lock, then exit 75 (default: 30 for the writer lock, 0 for exclusivity).' -rfka ''
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn hold" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn demo" json' -l 'json' -d 'Print the report as JSON with stable keys on stdout.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn demo" progress' -l 'progress' -d 'Show progress on stderr even when it is not a terminal (default: only when it is).'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn demo" no-progress' -l 'no-progress' -d 'Show no progress, even when stderr is a terminal.'
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn demo" lock-timeout' -l 'lock-timeout' -d 'Wait at most this many seconds (0…86400) for a lock, then exit 75 (default: 30 for the writer lock, 0 for exclusivity).' -rfka ''
complete -c 'firn' -n '__firn_should_offer_completions_for_flags_or_options "firn demo" h help' -s 'h' -l 'help' -d 'Show help information.'

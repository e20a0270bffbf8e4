// The progress line a command shows on stderr while the engine reads its inputs: only on
// a terminal, only without --quiet, only once the command has run for a second, and erased
// before anything else is written (StopProgress), so it never mixes with output or errors.
#pragma once

#include "stepstat/progress.h"

namespace stepstat::cli {

/// Starts the line's ticker when `show` (stderr a terminal, no --quiet); cli.cc calls it
/// once, before the command runs.
void StartProgress(bool show);

/// The meter a command hands the engine (RunOptions::progress); null when no line is shown.
ProgressMeter* CommandProgress();

/// Stops the ticker and erases the line. Called before any output or message and at exit;
/// calling it again does nothing. Engine calls made after it run uncounted.
void StopProgress();

}  // namespace stepstat::cli

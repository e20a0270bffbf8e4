#include "cli.h"
#include "stepstat/platform.h"

int main(int argc, char** argv) {
  // Windows: UTF-8 arguments, and JSON with LF line ends on stdout (not text mode's CRLF).
  stepstat::UseBinaryStandardStreams();
  stepstat::ProgramArguments args(argc, argv);
  return stepstat::cli::Run(args.argc(), args.argv());
}

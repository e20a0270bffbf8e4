#include "cli.h"

int main(int argc, char** argv) { return stepstat::cli::Run(argc, argv); }

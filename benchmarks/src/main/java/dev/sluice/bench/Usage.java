package dev.sluice.bench;

import java.util.List;

/**
 * {@code --help} for every main class in benchmarks: prints the command its Javadoc documents and
 * returns, without starting anything. Every main begins with
 *
 * <pre>
 * if (Usage.printed(args, USAGE)) {
 *   return;
 * }
 * </pre>
 *
 * where {@code USAGE} is the class's documented command, the same text as the {@code <pre>} block
 * of its Javadoc. {@code MainClassesTest} runs {@code --help} of every main class it finds, so a
 * command whose class was renamed or removed fails the build instead of the reader.
 */
public final class Usage {
  private Usage() {}

  /** Prints {@code command} when {@code args} ask for help ({@code --help} or {@code -h}). */
  public static boolean printed(String[] args, String command) {
    if (!List.of(args).contains("--help") && !List.of(args).contains("-h")) {
      return false;
    }
    System.out.println(command.strip());
    return true;
  }
}

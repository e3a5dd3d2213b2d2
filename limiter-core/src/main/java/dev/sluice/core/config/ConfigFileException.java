package dev.sluice.core.config;

import org.jspecify.annotations.Nullable;

/**
 * A configuration file that cannot be used. The message says where and what, in the form editors
 * and terminals understand: {@code envoy.yaml:7:12: descriptors[1].rate_limit.unit: invalid unit
 * 'minutes'; the units are second, minute, hour, day, week, month, year}.
 *
 * <p>The path names the field the way the file nests it: mapping keys joined with dots, list items
 * by their 0-based index in brackets. It is null when the problem is the file as a whole (it cannot
 * be read, it is empty, it is not YAML).
 */
public final class ConfigFileException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String source;
  private final int line;
  private final int column;
  private final @Nullable String path;
  private final String problem;

  /**
   * @param source the file (or what a text was called, e.g. {@code "the chart's envoy config"})
   * @param line 1-based, or 0 when unknown
   * @param column 1-based, or 0 when unknown
   * @param path the field at fault, e.g. {@code descriptors[0].key}; null for the whole file
   * @param problem what is wrong and, where it helps, what would be right
   */
  public ConfigFileException(
      String source,
      int line,
      int column,
      @Nullable String path,
      String problem,
      @Nullable Throwable cause) {
    super(format(source, line, column, path, problem), cause);
    this.source = source;
    this.line = line;
    this.column = column;
    this.path = path;
    this.problem = problem;
  }

  private static String format(
      String source, int line, int column, @Nullable String path, String problem) {
    StringBuilder message = new StringBuilder(source);
    if (line > 0) {
      message.append(':').append(line);
      if (column > 0) {
        message.append(':').append(column);
      }
    }
    message.append(": ");
    if (path != null && !path.isEmpty()) {
      message.append(path).append(": ");
    }
    return message.append(problem).toString();
  }

  /** The file, or the name given to a text. */
  public String source() {
    return source;
  }

  /** The 1-based line of the problem, or 0 when unknown. */
  public int line() {
    return line;
  }

  /** The 1-based column of the problem, or 0 when unknown. */
  public int column() {
    return column;
  }

  /** The field at fault ({@code descriptors[0].rate_limit.unit}), or null for the whole file. */
  public @Nullable String path() {
    return path;
  }

  /** What is wrong, without the location. */
  public String problem() {
    return problem;
  }
}

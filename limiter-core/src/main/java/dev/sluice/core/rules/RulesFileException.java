package dev.sluice.core.rules;

import org.jspecify.annotations.Nullable;

/**
 * A rules file that cannot be loaded. The message says where and what, in the form editors and
 * terminals understand: {@code rules.yaml:7:12: rule 'api' (#2), field 'limit': must be between 1
 * and 1000000000, was 0}.
 */
public final class RulesFileException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String source;
  private final int line;
  private final int column;
  private final @Nullable String rule;
  private final @Nullable String field;

  RulesFileException(
      String source,
      int line,
      int column,
      @Nullable String rule,
      @Nullable String field,
      String problem,
      @Nullable Throwable cause) {
    super(format(source, line, column, rule, field, problem), cause);
    this.source = source;
    this.line = line;
    this.column = column;
    this.rule = rule;
    this.field = field;
  }

  private static String format(
      String source,
      int line,
      int column,
      @Nullable String rule,
      @Nullable String field,
      String problem) {
    StringBuilder message = new StringBuilder(source);
    if (line > 0) {
      message.append(':').append(line);
      if (column > 0) {
        message.append(':').append(column);
      }
    }
    message.append(": ");
    if (rule != null) {
      message.append(rule);
      message.append(field != null ? ", " : ": ");
    }
    if (field != null) {
      message.append("field '").append(field).append("': ");
    }
    return message.append(problem).toString();
  }

  /** The file (or the source name given for a string or reader). */
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

  /**
   * The rule at fault as the message names it: {@code rule 'login' (#1)} or {@code rule #3} when it
   * has no usable name yet; null when the problem is outside any rule.
   */
  public @Nullable String rule() {
    return rule;
  }

  /** The field at fault, e.g. {@code window}; null when the problem is not one field's. */
  public @Nullable String field() {
    return field;
  }
}

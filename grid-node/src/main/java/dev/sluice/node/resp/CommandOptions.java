package dev.sluice.node.resp;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The {@code KEYWORD value} pairs after a command's fixed arguments ({@code COST 2 MAXWAIT 500}),
 * keywords in any case, each at most once, only those the command takes.
 */
final class CommandOptions {
  private final String command;
  private final Map<String, byte[]> values;

  private CommandOptions(String command, Map<String, byte[]> values) {
    this.command = command;
    this.values = values;
  }

  /**
   * The options of {@code command} from argument {@code from} on.
   *
   * @throws CommandError for an option it does not take, one given twice or one without a value
   */
  static CommandOptions read(RespCommand command, int from, List<String> allowed) {
    Map<String, byte[]> values = new LinkedHashMap<>();
    String name = command.name().toUpperCase(Locale.ROOT);
    for (int i = from; i < command.size(); i += 2) {
      String keyword = command.ascii(i).toUpperCase(Locale.ROOT);
      if (!allowed.contains(keyword)) {
        throw new CommandError(
            "ERR syntax error: "
                + name
                + " takes no option '"
                + command.quoted(i)
                + "' (it takes "
                + String.join(", ", allowed)
                + ")");
      }
      if (i + 1 >= command.size()) {
        throw new CommandError("ERR syntax error: " + keyword + " needs a value");
      }
      if (values.put(keyword, command.bytes(i + 1)) != null) {
        throw new CommandError("ERR syntax error: " + keyword + " is given twice");
      }
    }
    return new CommandOptions(name, values);
  }

  boolean has(String keyword) {
    return values.containsKey(keyword);
  }

  /** An integer option, as Redis reads integers; null when absent. */
  @Nullable Long integer(String keyword) {
    byte[] value = values.get(keyword);
    return value == null ? null : Arguments.redisInteger(value, Arguments.NOT_AN_INTEGER);
  }

  /** A text option; null when absent. */
  @Nullable String text(String keyword) {
    byte[] value = values.get(keyword);
    return value == null ? null : new RespCommand(new byte[][] {value}).text(0, keyword);
  }

  /** {@code true} or {@code false}, in any case; null when absent. */
  @Nullable Boolean bool(String keyword) {
    String value = text(keyword);
    if (value == null) {
      return null;
    }
    if (value.equalsIgnoreCase("true")) {
      return true;
    }
    if (value.equalsIgnoreCase("false")) {
      return false;
    }
    throw new CommandError(
        "ERR " + command + " " + keyword + " must be true or false, was '" + value + "'");
  }
}

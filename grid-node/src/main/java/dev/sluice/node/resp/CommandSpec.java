package dev.sluice.node.resp;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One command of the table: how it is called (arity, key positions, flags, for {@code COMMAND}),
 * what it is for ({@code COMMAND DOCS}), and what runs it.
 *
 * @param name lower case, as Redis names commands in replies ({@code cl.throttle})
 * @param arity Redis's: {@code n > 0} exactly n arguments with the name, {@code -n} at least n
 * @param flags {@code write}, {@code readonly}, {@code fast}, {@code admin}, ...
 * @param firstKey the position of the first key (0: none); a cluster client routes by it
 * @param lastKey the position of the last key (-1: the last argument)
 * @param keyStep the distance between keys
 * @param group Redis's command group ({@code connection}, {@code server}, {@code rate_limit})
 * @param summary one line for {@code COMMAND DOCS}
 * @param since the Sluice version that added it
 * @param arguments the arguments after the name, for {@code COMMAND DOCS}
 * @param subcommands {@code CLIENT SETNAME} and the like, for {@code COMMAND}
 * @param handler runs it; null for a subcommand's entry (its container runs it)
 */
record CommandSpec(
    String name,
    int arity,
    List<String> flags,
    int firstKey,
    int lastKey,
    int keyStep,
    String group,
    String summary,
    String since,
    List<Argument> arguments,
    List<CommandSpec> subcommands,
    @Nullable Handler handler) {

  /** Runs a command whose arity was checked. */
  @FunctionalInterface
  interface Handler {
    /**
     * @throws CommandError for arguments it refuses
     */
    Step handle(RespCommand command, Session session);
  }

  /**
   * An argument as {@code COMMAND DOCS} lists it.
   *
   * @param type {@code key}, {@code string}, {@code integer}, {@code double}, {@code pure-token},
   *     {@code block}
   * @param token the keyword before it ({@code TOKENS}), if any
   */
  record Argument(String name, String type, @Nullable String token, boolean optional) {}

  /** Whether {@code size} arguments (the name included) fit the arity. */
  boolean arityAllows(int size) {
    return arity > 0 ? size == arity : size >= -arity;
  }
}

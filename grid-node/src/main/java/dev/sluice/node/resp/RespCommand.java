package dev.sluice.node.resp;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * One command as a client sent it: its arguments as bytes, the command's name first. Redis
 * arguments are binary; Sluice's keys and names are text, so they are read as strict UTF-8 here.
 */
final class RespCommand {
  private final byte[][] args;

  RespCommand(byte[][] args) {
    this.args = args;
  }

  /** The number of arguments, the name included. */
  int size() {
    return args.length;
  }

  byte[] bytes(int index) {
    return args[index];
  }

  /** The command's name, lower case (as Redis names commands in its replies). */
  String name() {
    return ascii(0).toLowerCase(Locale.ROOT);
  }

  /** Argument {@code index} as Latin-1 text: for keywords and numbers, which are ASCII. */
  String ascii(int index) {
    return new String(args[index], StandardCharsets.ISO_8859_1);
  }

  /** Whether argument {@code index} is {@code keyword}, in any case. */
  boolean is(int index, String keyword) {
    return index < args.length && ascii(index).equalsIgnoreCase(keyword);
  }

  /**
   * Argument {@code index} as UTF-8 text: a key, a rule or client name, a token.
   *
   * @throws CommandError if it is not well-formed UTF-8
   */
  String text(int index, String what) {
    byte[] bytes = args[index];
    boolean ascii = true;
    for (byte b : bytes) {
      if (b < 0) {
        ascii = false;
        break;
      }
    }
    if (ascii) {
      return new String(bytes, StandardCharsets.ISO_8859_1);
    }
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes))
          .toString();
    } catch (CharacterCodingException e) {
      throw new CommandError("ERR " + what + " must be UTF-8 text");
    }
  }

  /**
   * Argument {@code index} as it may be quoted in an error message: lossy UTF-8, at most 128
   * characters.
   */
  String quoted(int index) {
    String text = new String(args[index], StandardCharsets.UTF_8);
    return text.length() <= 128 ? text : text.substring(0, 128) + "...";
  }
}

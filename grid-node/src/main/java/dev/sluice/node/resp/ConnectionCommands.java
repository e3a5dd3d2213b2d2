package dev.sluice.node.resp;

import dev.sluice.rest.AdminToken;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The connection commands clients send on their own: {@code PING}, {@code ECHO}, {@code HELLO},
 * {@code AUTH}, {@code CLIENT}, {@code SELECT}, {@code QUIT}, {@code RESET}, with Redis's replies
 * and error texts.
 *
 * <h2>The admin token</h2>
 *
 * {@code AUTH <token>}, {@code AUTH default <token>} and {@code HELLO 3 AUTH default <token>} show
 * the node's admin token ({@code SLUICE_ADMIN_TOKEN}); the connection may then send admin commands
 * (rule changes, resets, counted releases), as REST's admin routes take it as a bearer token. Every
 * other command needs none, as REST's checks need none. With no admin token configured, admin
 * commands are open (as REST's routes are) and {@code AUTH <password>} is Redis's error for a
 * server without a password.
 */
final class ConnectionCommands {
  static final String WRONGPASS = "WRONGPASS invalid username-password pair or user is disabled.";

  private final AdminToken token;

  ConnectionCommands(AdminToken token) {
    this.token = token;
  }

  Step ping(RespCommand command, Session session) {
    if (command.size() > 2) {
      throw new CommandError(CommandTable.arityError("ping"));
    }
    return new Step.Now(command.size() == 2 ? Reply.bulk(command.bytes(1)) : Reply.status("PONG"));
  }

  Step echo(RespCommand command, Session session) {
    return new Step.Now(Reply.bulk(command.bytes(1)));
  }

  /** {@code HELLO [protover [AUTH username password] [SETNAME clientname]]}. */
  Step hello(RespCommand command, Session session) {
    int protocol = session.protocol();
    if (command.size() >= 2) {
      long asked =
          Arguments.redisInteger(
              command.bytes(1), "ERR Protocol version is not an integer or out of range");
      if (asked != 2 && asked != 3) {
        throw new CommandError("NOPROTO unsupported protocol version");
      }
      protocol = (int) asked;
    }
    String name = null;
    boolean authenticate = false;
    for (int i = 2; i < command.size(); i++) {
      if (command.is(i, "AUTH") && i + 2 < command.size()) {
        checkCredentials(command.text(i + 1, "username"), command.text(i + 2, "password"));
        authenticate = true;
        i += 2;
      } else if (command.is(i, "SETNAME") && i + 1 < command.size()) {
        name = clientName(command.text(i + 1, "client name"));
        i += 1;
      } else {
        throw new CommandError("ERR Syntax error in HELLO option '" + command.quoted(i) + "'");
      }
    }
    // Nothing changes unless every option was good, as in Redis.
    session.protocol(protocol);
    if (authenticate) {
      session.authenticated(true);
    }
    if (name != null) {
      session.name(name.isEmpty() ? null : name);
    }
    return new Step.Now(
        Reply.map(
            "server", Reply.bulk("sluice"),
            "version", Reply.bulk(ServerCommands.REDIS_VERSION),
            "proto", Reply.integer(protocol),
            "id", Reply.integer(session.id()),
            "mode", Reply.bulk("cluster"),
            "role", Reply.bulk("master"),
            "modules", Reply.array(List.of())));
  }

  /** {@code AUTH <token>} or {@code AUTH default <token>}. */
  Step auth(RespCommand command, Session session) {
    if (command.size() > 3) {
      throw new CommandError("ERR syntax error");
    }
    if (command.size() == 2 && !token.configured()) {
      throw new CommandError(
          "ERR AUTH <password> called without any password configured for the default user. Are"
              + " you sure your configuration is correct?");
    }
    String user = command.size() == 3 ? command.text(1, "username") : "default";
    checkCredentials(user, command.text(command.size() - 1, "password"));
    session.authenticated(true);
    return new Step.Now(Reply.OK);
  }

  /**
   * The credentials of {@code AUTH} and {@code HELLO AUTH}: the user {@code default} with the admin
   * token; anything for {@code default} when no token is configured (Redis's user without a
   * password).
   */
  private void checkCredentials(String user, String password) {
    if (!user.equals("default") || (token.configured() && !token.matches(password))) {
      throw new CommandError(WRONGPASS);
    }
  }

  /** {@code CLIENT SETNAME|GETNAME|SETINFO|ID|INFO}. */
  Step client(RespCommand command, Session session) {
    String sub = command.ascii(1).toLowerCase(Locale.ROOT);
    switch (sub) {
      case "setname" -> {
        exactly(command, 3, "client|setname");
        String name = clientName(command.text(2, "client name"));
        session.name(name.isEmpty() ? null : name);
        return new Step.Now(Reply.OK);
      }
      case "getname" -> {
        exactly(command, 2, "client|getname");
        return new Step.Now(session.name() == null ? Reply.NULL : Reply.bulk(session.name()));
      }
      case "id" -> {
        exactly(command, 2, "client|id");
        return new Step.Now(Reply.integer(session.id()));
      }
      case "info" -> {
        exactly(command, 2, "client|info");
        return new Step.Now(new Reply.Verbatim(session.describe() + "\n"));
      }
      case "setinfo" -> {
        exactly(command, 4, "client|setinfo");
        String value = command.text(3, "value");
        if (command.is(2, "lib-name")) {
          if (!printable(value)) {
            throw new CommandError(
                "ERR lib-name cannot contain spaces, newlines or special characters.");
          }
          session.libraryName(value.isEmpty() ? null : value);
        } else if (command.is(2, "lib-ver")) {
          if (!printable(value)) {
            throw new CommandError(
                "ERR lib-ver cannot contain spaces, newlines or special characters.");
          }
          session.libraryVersion(value.isEmpty() ? null : value);
        } else {
          throw new CommandError("ERR Unrecognized option '" + command.quoted(2) + "'");
        }
        return new Step.Now(Reply.OK);
      }
      default ->
          throw new CommandError(
              "ERR unknown subcommand '"
                  + command.quoted(1)
                  + "'. Try CLIENT SETNAME, GETNAME, SETINFO, ID or INFO.");
    }
  }

  /** {@code SELECT 0}: the one database there is. */
  Step select(RespCommand command, Session session) {
    long index = Arguments.redisInteger(command.bytes(1), Arguments.NOT_AN_INTEGER);
    if (index != 0) {
      throw new CommandError("ERR DB index is out of range");
    }
    return new Step.Now(Reply.OK);
  }

  Step quit(RespCommand command, Session session) {
    return new Step.Quit();
  }

  /** {@code RESET}: back to RESP2, not authenticated, no name. */
  Step reset(RespCommand command, Session session) {
    session.reset();
    return new Step.Now(Reply.status("RESET"));
  }

  /**
   * {@code CONFIG GET}: nothing is configured over the protocol; the node's settings are its own.
   */
  Step config(RespCommand command, Session session) {
    if (command.is(1, "get")) {
      return new Step.Now(Reply.map(new ArrayList<>()));
    }
    throw new CommandError(
        "ERR CONFIG "
            + command.quoted(1)
            + " is not supported: a Sluice node is configured by its SLUICE_* settings");
  }

  /** A client name: printable ASCII without spaces, as Redis allows; empty clears it. */
  private static String clientName(String name) {
    if (!printable(name)) {
      throw new CommandError(
          "ERR Client names cannot contain spaces, newlines or special characters.");
    }
    return name;
  }

  private static boolean printable(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < '!' || c > '~') {
        return false;
      }
    }
    return true;
  }

  private static void exactly(RespCommand command, int size, String name) {
    if (command.size() != size) {
      throw new CommandError(CommandTable.arityError(name));
    }
  }
}

package dev.sluice.node.resp;

import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * One connection's state, as its commands leave it: the protocol ({@code HELLO}), whether it has
 * shown the admin token ({@code AUTH}), its name and library ({@code CLIENT}). Touched only on the
 * connection's event loop, in command order.
 */
final class Session {
  private static final AtomicLong IDS = new AtomicLong();

  private final long id = IDS.incrementAndGet();
  private final String address;
  private int protocol = 2;
  private boolean authenticated;
  private @Nullable String name;
  private @Nullable String libraryName;
  private @Nullable String libraryVersion;

  Session(String address) {
    this.address = address;
  }

  /** The connection's id ({@code CLIENT ID}), unique in this node's lifetime. */
  long id() {
    return id;
  }

  /** The client's {@code host:port}. */
  String address() {
    return address;
  }

  /** 2 or 3: how replies are written. */
  int protocol() {
    return protocol;
  }

  void protocol(int version) {
    this.protocol = version;
  }

  /** Whether this connection has shown the admin token. */
  boolean authenticated() {
    return authenticated;
  }

  void authenticated(boolean shown) {
    this.authenticated = shown;
  }

  @Nullable String name() {
    return name;
  }

  void name(@Nullable String clientName) {
    this.name = clientName;
  }

  @Nullable String libraryName() {
    return libraryName;
  }

  void libraryName(@Nullable String library) {
    this.libraryName = library;
  }

  @Nullable String libraryVersion() {
    return libraryVersion;
  }

  void libraryVersion(@Nullable String version) {
    this.libraryVersion = version;
  }

  /** {@code RESET}: RESP2, not authenticated, no name; the id and library stay. */
  void reset() {
    protocol = 2;
    authenticated = false;
    name = null;
  }

  /** {@code CLIENT INFO}'s line for this connection. */
  String describe() {
    return "id="
        + id
        + " addr="
        + address
        + " name="
        + (name == null ? "" : name)
        + " db=0 resp="
        + protocol
        + " lib-name="
        + (libraryName == null ? "" : libraryName)
        + " lib-ver="
        + (libraryVersion == null ? "" : libraryVersion);
  }
}

package dev.sluice.node;

/**
 * A node configuration that cannot be used. The message says where the bad value came from (a file
 * with line and column, or an environment variable), which setting it is, and what is accepted:
 * {@code node.yaml:3:11: restPort: must be a port number from 0 to 65535, was 'http'}.
 */
public final class NodeConfigException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public NodeConfigException(String message) {
    super(message);
  }

  public NodeConfigException(String message, Throwable cause) {
    super(message, cause);
  }
}

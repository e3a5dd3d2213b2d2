package dev.sluice.node.envoy;

import dev.sluice.core.config.ConfigFileException;
import dev.sluice.core.config.PeriodicPoll;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the Envoy config in step with its file or directory: loads it at start (a broken config
 * fails the start) and then polls it, the way the rules file is watched.
 *
 * <p>Polling rather than {@code WatchService}: a Kubernetes ConfigMap volume changes by swapping a
 * symlink, which watch events miss on some file systems. Each poll lists the config files and
 * hashes their names and contents (a few KB, microseconds); when the hash changes the whole config
 * is loaded again. A valid one replaces the old in one step ({@link #current()}); a broken one is
 * logged with file, line and field, and the old one stays. Files added to or removed from a
 * directory count as a change.
 */
final class EnvoyConfigWatcher implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EnvoyConfigWatcher.class);

  /** What one poll did. */
  enum Outcome {
    UNCHANGED,
    APPLIED,
    REJECTED
  }

  private final Path path;
  private final Object lock = new Object();
  private volatile EnvoyConfig current = EnvoyConfig.EMPTY;
  private byte @Nullable [] lastSeen;
  private Consumer<Boolean> onLoad = success -> {};
  private Consumer<EnvoyConfig> beforeApply = loaded -> {};
  private final PeriodicPoll poller;

  EnvoyConfigWatcher(Path path, Duration interval) {
    this.path = path;
    this.poller = new PeriodicPoll("sluice-envoy-config-watcher", interval, this::pollQuietly);
  }

  /**
   * Loads the config.
   *
   * @throws ConfigFileException if it is missing or broken
   */
  EnvoyConfig loadInitial() {
    synchronized (lock) {
      byte[] digest = digest();
      current = EnvoyConfigLoader.load(path);
      lastSeen = digest;
      return current;
    }
  }

  /** The config in force. */
  EnvoyConfig current() {
    return current;
  }

  /** Checks once: applies a valid change, logs and ignores a broken one. */
  Outcome poll() {
    synchronized (lock) {
      byte[] digest = digest();
      if (Arrays.equals(digest, lastSeen)) {
        return Outcome.UNCHANGED;
      }
      lastSeen = digest;
      EnvoyConfig loaded;
      try {
        loaded = EnvoyConfigLoader.load(path);
      } catch (ConfigFileException e) {
        LOG.error(
            "Envoy config change rejected: {}; keeping the previous config ({} domains)",
            e.getMessage(),
            current.domains().size());
        onLoad.accept(false);
        return Outcome.REJECTED;
      }
      beforeApply.accept(loaded); // its limits' rules, before a request can match them
      current = loaded;
      onLoad.accept(true);
      LOG.info(
          "Envoy config {} reloaded: {} domains {}",
          path,
          loaded.domains().size(),
          loaded.domains());
      return Outcome.APPLIED;
    }
  }

  /**
   * Polls every interval on a daemon thread until {@link #close()}; hands each valid change to
   * {@code beforeApply} before it is in force, and reports loads to {@code onLoad}.
   */
  EnvoyConfigWatcher start(Consumer<Boolean> onLoad, Consumer<EnvoyConfig> beforeApply) {
    synchronized (lock) {
      this.onLoad = onLoad;
      this.beforeApply = beforeApply;
    }
    poller.start();
    return this;
  }

  @Override
  public void close() {
    poller.close();
  }

  private void pollQuietly() {
    try {
      poll();
    } catch (RuntimeException e) {
      LOG.warn("Envoy config {} could not be checked ({}); retrying", path, e.toString());
    }
  }

  /**
   * A hash of what the config is made of: each file's name and content, or what kept it from being
   * read (so that a file becoming unreadable is a change, and reported once).
   */
  private byte[] digest() {
    MessageDigest sha;
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
    List<Path> files;
    try {
      files = EnvoyConfigLoader.files(path);
    } catch (ConfigFileException e) {
      return sha.digest(("unlisted:" + e.getMessage()).getBytes(StandardCharsets.UTF_8));
    }
    for (Path file : files) {
      sha.update(file.toString().getBytes(StandardCharsets.UTF_8));
      sha.update((byte) 0);
      try {
        sha.update(Files.readAllBytes(file));
      } catch (IOException e) {
        sha.update(("unreadable:" + e).getBytes(StandardCharsets.UTF_8));
      }
      sha.update((byte) 0);
    }
    return sha.digest();
  }
}

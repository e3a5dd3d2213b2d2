package dev.sluice.node;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a node's start has opened, to be closed in reverse order. Each part pushes its closer as
 * soon as it has started, so the one list serves both ends of a node's life: a step that fails
 * later in the start closes exactly what had started before it, and {@link SluiceNode#close()}
 * closes the same parts in the same order (the front ends opened last close first, the member
 * opened first leaves last, handing its partitions over).
 *
 * <p>A closer that throws is logged and the others still run: a front end that fails to stop must
 * not keep the member from leaving gracefully.
 */
final class CloseStack implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CloseStack.class);

  private record Opened(String name, Runnable closer) {}

  private final Deque<Opened> opened = new ArrayDeque<>();

  /** Notes that {@code part} is open and how it closes; returns {@code part}. */
  <T> T push(String name, T part, Consumer<? super T> close) {
    synchronized (opened) {
      opened.push(new Opened(name, () -> close.accept(part)));
    }
    return part;
  }

  /** Closes every part pushed, the last pushed first; a second call finds nothing to close. */
  @Override
  public void close() {
    while (true) {
      Opened part;
      synchronized (opened) {
        part = opened.poll();
      }
      if (part == null) {
        return;
      }
      try {
        part.closer().run();
      } catch (RuntimeException e) {
        LOG.warn("closing the {} failed; closing the rest", part.name(), e);
      }
    }
  }
}

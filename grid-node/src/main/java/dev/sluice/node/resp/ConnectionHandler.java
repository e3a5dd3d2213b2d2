package dev.sluice.node.resp;

import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import dev.sluice.core.PolicyRef;
import dev.sluice.core.RateLimiter;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.concurrent.EventExecutor;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection: its commands in, its replies out, in order, with the checks it sends in a row
 * decided together. Runs on the connection's event loop only, so nothing here needs a lock; the
 * pipeline's answers come back to that loop ({@code handleAsync(..., onLoop)}) before they touch
 * anything. Checks ask the pipeline to complete their answers on the loop itself ({@link
 * RateLimiter#tryAcquireAllAsync(List, java.util.concurrent.Executor)}): a batch's answer then
 * reaches it straight from the grid, with no hop through Hazelcast's callback pool, and is handled
 * in the task that brought it.
 *
 * <h2>Order and batching</h2>
 *
 * Each command gets a slot in a queue, in the order it was read, and its reply is written when
 * every slot before it has one. A command that needs nothing from the grid ({@code PING}, an error
 * in its arguments) is answered at once; a check ({@code CL.THROTTLE}, {@code GCRA}, {@code
 * SLUICE.CHECK}) joins the checks read with it, and when the read is done they go to the pipeline
 * together, as one {@code tryAcquireAllAsync} (batched per owner, each key's checks in order),
 * without waiting for the batches before it where the pipeline keeps their order ({@link #send});
 * any other grid command ({@code SLUICE.RESET}, a release, a rule change) first lets the checks
 * before it go, then runs once all earlier work is done, so the connection sees its commands take
 * effect in the order it sent them, as on Redis. Replies that are ready together leave in one
 * write.
 *
 * <pre>
 *   read:  CL.THROTTLE a · CL.THROTTLE b · PING · CL.THROTTLE a · SLUICE.RESET r a · GCRA c
 *   grid:  [a, b, a] ───────────────────────────────▶ reset a ──▶ [c]
 *   write: *5 *5 +PONG *5 (one write) ··· +OK ··· *5
 * </pre>
 *
 * If the pipeline refuses such a batch whole for one check's sake (an unknown rule, a cost above a
 * rule's capacity: refused before anything is counted), its checks are decided one by one, each
 * with its own answer, as if sent alone.
 *
 * <h2>Back-pressure</h2>
 *
 * The connection is read while its output is below the high water mark and fewer than {@link
 * RespLimits#maxPendingReplies()} replies wait; otherwise reading stops until the client takes its
 * replies. A client that pipelines and never reads ends up holding the node's output at the water
 * mark and its own commands in its socket, costing nothing else.
 *
 * <h2>Bad input</h2>
 *
 * A protocol error ({@link RespDecoder}) is answered in its turn, after the commands before it, and
 * the connection is then closed: the stream cannot be read in step again. It counts no command.
 */
final class ConnectionHandler extends ChannelInboundHandlerAdapter {
  private static final Logger LOG = LoggerFactory.getLogger(ConnectionHandler.class);
  private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

  private final CommandTable table;
  private final RateLimiter limiter;
  private final RespMetrics metrics;
  private final RespLimits limits;
  private final ArrayDeque<Slot> slots = new ArrayDeque<>();
  private List<Pending> batch = new ArrayList<>();
  // Completes (normally, on the event loop) when the work sent so far has been answered.
  private CompletableFuture<Void> tail = DONE;
  // Completes when the last work that later checks must wait for has been answered (see send()).
  private CompletableFuture<Void> inTurn = DONE;
  private @Nullable ChannelHandlerContext context;
  private @Nullable Session session;
  private boolean closing;
  private byte @Nullable [] lastName;
  private @Nullable CommandSpec lastSpec;

  ConnectionHandler(
      CommandTable table, RateLimiter limiter, RespMetrics metrics, RespLimits limits) {
    this.table = table;
    this.limiter = limiter;
    this.metrics = metrics;
    this.limits = limits;
  }

  /** A command's place in the reply order. */
  private static final class Slot {
    final String command;
    final long readAtNanos;
    final int protocol;
    final boolean metered;
    @Nullable Reply reply;
    boolean closeAfter;

    Slot(String command, long readAtNanos, int protocol, boolean metered) {
      this.command = command;
      this.readAtNanos = readAtNanos;
      this.protocol = protocol;
      this.metered = metered;
    }
  }

  /** A check waiting for its batch, and where its answer goes. */
  private record Pending(Step.Decide decide, Slot slot) {}

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.context = ctx;
    this.session = new Session(address(ctx.channel().remoteAddress()));
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object message) {
    if (closing) {
      return; // after QUIT or a protocol error nothing more is read
    }
    if (message instanceof RespCommand command) {
      dispatch(command);
      if (slots.size() >= limits.maxPendingReplies()) {
        // Replies are written when a read loop ends, and one loop reads up to 16 socket buffers:
        // stop it here, or a client that never reads could have a megabyte of replies queued at
        // once (928 KB seen against a 64 KiB water mark).
        updateReading();
      }
    } else if (message instanceof RespProtocolException refused) {
      refuse(refused);
    }
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    send();
    flushReady();
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    updateReading();
    ctx.fireChannelWritabilityChanged();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    LOG.debug("Redis protocol connection {} failed", ctx.channel().remoteAddress(), cause);
    ctx.close();
  }

  private void dispatch(RespCommand command) {
    long readAt = System.nanoTime();
    Session connection = session();
    CommandSpec spec = find(command);
    Step step;
    try {
      step = table.run(spec, command, connection);
    } catch (RuntimeException e) {
      step = new Step.Now(RespErrors.of(e));
    }
    // After the command ran: HELLO 3 is itself answered in RESP3.
    Slot slot =
        new Slot(spec == null ? "unknown" : spec.name(), readAt, connection.protocol(), true);
    slots.addLast(slot);
    if (step instanceof Step.Now now) {
      answer(slot, now.reply(), outcome(now.reply()));
    } else if (step instanceof Step.Decide decide) {
      batch.add(new Pending(decide, slot));
    } else if (step instanceof Step.Later later) {
      send();
      runInTurn(later, slot);
    } else if (step instanceof Step.Quit) {
      slot.closeAfter = true;
      closing = true;
      answer(slot, Reply.OK, "ok");
    }
  }

  /**
   * The command's entry in the table: the last one again when the name's bytes are the same (a
   * client sends one command over and over), without decoding or lower-casing them.
   */
  private @Nullable CommandSpec find(RespCommand command) {
    byte[] name = command.bytes(0);
    if (lastName != null && Arrays.equals(name, lastName)) {
      return lastSpec;
    }
    CommandSpec spec = table.find(command.ascii(0));
    lastName = name;
    lastSpec = spec;
    return spec;
  }

  /** A protocol error: answered after what came before it; then the connection closes. */
  private void refuse(RespProtocolException refused) {
    send();
    metrics.protocolError(refused.reason());
    Slot slot = new Slot("protocol", System.nanoTime(), session().protocol(), false);
    slot.reply = Reply.error(refused.reply());
    slot.closeAfter = true;
    slots.addLast(slot);
    closing = true;
    flushReady();
  }

  /**
   * Sends the checks read in a row as one batch. A batch of inline checks in which no key changes
   * policy leaves at once, while earlier checks may still be out: it reaches the pipeline's lanes
   * after them, and a lane decides a key's commands in the order they came, so each key still sees
   * the connection's checks in order (a client that shares one connection among threads, as Lettuce
   * does, keeps several batches in flight). Any other batch (a rule, which a client-mode node may
   * first have to read; a key whose parameters change, which the pipeline decides in parts) waits
   * until everything before it is answered, and later checks wait for it in turn.
   */
  private void send() {
    if (batch.isEmpty()) {
      return;
    }
    List<Pending> sending = batch;
    batch = new ArrayList<>();
    if (inTurn.isDone() && leavesAtOnce(sending)) {
      CompletableFuture<Void> decided = guarded(decide(sending));
      tail = tail.isDone() ? decided : CompletableFuture.allOf(tail, decided);
    } else {
      tail = guarded(tail.thenCompose(ignored -> decide(sending)));
      inTurn = tail;
    }
  }

  /** Whether every check is inline and names its key under one policy only. */
  private static boolean leavesAtOnce(List<Pending> sending) {
    if (sending.size() == 1) {
      return sending.get(0).decide().check().ref() instanceof PolicyRef.Inline;
    }
    Map<String, PolicyRef> refs = new HashMap<>();
    for (Pending pending : sending) {
      Check check = pending.decide().check();
      if (!(check.ref() instanceof PolicyRef.Inline)) {
        return false;
      }
      PolicyRef first = refs.putIfAbsent(check.key(), check.ref());
      if (first != null && !first.equals(check.ref())) {
        return false;
      }
    }
    return true;
  }

  /**
   * {@code work} that completes normally whatever happens, so that later work still runs; a failure
   * here is a bug (every answer path handles the pipeline's failures), so the connection, whose
   * replies can no longer be put in order, is closed.
   */
  private CompletableFuture<Void> guarded(CompletableFuture<Void> work) {
    return work.exceptionally(
        failure -> {
          LOG.warn("Redis protocol connection {} failed; closing it", session().address(), failure);
          closing = true;
          context().close();
          return null;
        });
  }

  private CompletableFuture<Void> decide(List<Pending> sending) {
    List<Check> checks = new ArrayList<>(sending.size());
    for (Pending pending : sending) {
      checks.add(pending.decide().check());
    }
    return call(() -> limiter.tryAcquireAllAsync(checks, context().executor()))
        .handleAsync(
            (decisions, failure) -> {
              if (failure == null) {
                for (int i = 0; i < sending.size(); i++) {
                  answer(sending.get(i), decisions.get(i));
                }
                flushReady();
                return DONE;
              }
              if (sending.size() > 1 && RespErrors.refusedBeforeCounting(failure)) {
                return oneByOne(sending);
              }
              Reply error = RespErrors.of(failure);
              for (Pending pending : sending) {
                answer(pending.slot(), error, "error");
              }
              flushReady();
              return DONE;
            },
            onLoop())
        .thenCompose(next -> next);
  }

  /** The checks of a batch refused whole, each decided alone, in order. */
  private CompletableFuture<Void> oneByOne(List<Pending> sending) {
    CompletableFuture<Void> chain = DONE;
    for (Pending pending : sending) {
      chain =
          chain.thenCompose(
              ignored ->
                  call(() -> limiter.tryAcquireAsync(pending.decide().check()))
                      .handleAsync(
                          (decision, failure) -> {
                            if (failure == null) {
                              answer(pending, decision);
                            } else {
                              answer(pending.slot(), RespErrors.of(failure), "error");
                            }
                            flushReady();
                            return null;
                          },
                          onLoop()));
    }
    return chain;
  }

  /** Runs {@code later} once everything before it is answered. */
  private void runInTurn(Step.Later later, Slot slot) {
    tail =
        guarded(
            tail.thenCompose(
                ignored ->
                    call(() -> later.run().get())
                        .handleAsync(
                            (reply, failure) -> {
                              if (failure == null) {
                                answer(slot, reply, outcome(reply));
                              } else {
                                answer(slot, RespErrors.of(failure), "error");
                              }
                              flushReady();
                              return null;
                            },
                            onLoop())));
    inTurn = tail;
  }

  /** Runs a task at once on the connection's loop, or hands it to the loop from elsewhere. */
  private Executor onLoop() {
    EventExecutor loop = context().executor();
    return task -> {
      if (loop.inEventLoop()) {
        task.run();
      } else {
        loop.execute(task);
      }
    };
  }

  /** {@code work}'s future; one that failed if starting it threw. */
  private static <T> CompletableFuture<T> call(Supplier<? extends CompletionStage<T>> work) {
    try {
      return work.get().toCompletableFuture();
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  private void answer(Pending pending, Decision decision) {
    Reply reply;
    try {
      reply = pending.decide().answer().apply(decision);
    } catch (RuntimeException e) {
      reply = RespErrors.of(e);
    }
    answer(pending.slot(), reply, decision.allowed() ? "allowed" : "denied");
  }

  private void answer(Slot slot, Reply reply, String outcome) {
    slot.reply = reply;
    if (slot.metered) {
      metrics.answered(slot.command, outcome, System.nanoTime() - slot.readAtNanos);
    }
  }

  private static String outcome(Reply reply) {
    return reply instanceof Reply.Error ? "error" : "ok";
  }

  /** Writes the replies ready at the head of the queue, in one write, then flushes. */
  private void flushReady() {
    ChannelHandlerContext ctx = context();
    if (!ctx.channel().isActive()) {
      while (!slots.isEmpty() && slots.peekFirst().reply != null) {
        slots.pollFirst(); // gone: nobody to answer
      }
      return;
    }
    ByteBuf out = null;
    boolean close = false;
    while (!slots.isEmpty() && slots.peekFirst().reply != null) {
      Slot slot = slots.pollFirst();
      if (out == null) {
        out = ctx.alloc().ioBuffer();
      }
      ReplyEncoder.write(slot.reply, slot.protocol, out);
      if (slot.closeAfter) {
        close = true;
        slots.clear();
        break;
      }
    }
    if (out != null) {
      ChannelFuture written = ctx.writeAndFlush(out);
      if (close) {
        written.addListener(ChannelFutureListener.CLOSE);
      }
    }
    updateReading();
  }

  /**
   * Reads the connection while its client takes its replies and not too many wait (see the class
   * comment), never after QUIT or a protocol error.
   */
  private void updateReading() {
    Channel channel = context().channel();
    boolean read = !closing && channel.isWritable() && slots.size() < limits.maxPendingReplies();
    if (channel.config().isAutoRead() != read) {
      channel.config().setAutoRead(read);
    }
  }

  private ChannelHandlerContext context() {
    ChannelHandlerContext ctx = context;
    if (ctx == null) {
      throw new IllegalStateException("not added to a channel");
    }
    return ctx;
  }

  private Session session() {
    Session connection = session;
    if (connection == null) {
      throw new IllegalStateException("not added to a channel");
    }
    return connection;
  }

  private static String address(@Nullable SocketAddress remote) {
    if (remote instanceof InetSocketAddress inet) {
      return inet.getAddress() == null
          ? inet.getHostString() + ":" + inet.getPort()
          : inet.getAddress().getHostAddress() + ":" + inet.getPort();
    }
    return String.valueOf(remote);
  }
}

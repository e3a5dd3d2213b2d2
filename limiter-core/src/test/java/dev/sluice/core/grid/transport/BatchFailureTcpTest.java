package dev.sluice.core.grid.transport;

import dev.sluice.core.grid.GridTestCluster;

/**
 * {@link BatchFailureTest}'s batches with a failing key, over real TCP on 127.0.0.1: three members
 * and a smart client, each a real Hazelcast instance with its own sockets and threads.
 *
 * <p>The in-memory network hands a packet to the receiving member on the sender's thread and reads
 * a client's answers on plain executor threads. Over TCP, a client reads its answers on its {@code
 * hz.client_*} threads, a member reads another member's answer on its IO and response threads, and
 * the owner's exception crosses a real socket. There a failure callback left on the thread that
 * read the answer would hold up that connection, and a synchronous call from it would wait for an
 * answer that only that thread can read: these tests check that the batch's failure still reaches
 * every caller on the limiter's callback executor, that such a callback may call the grid again,
 * that the lane keeps sending, and that the other keys are counted exactly once.
 */
class BatchFailureTcpTest extends BatchFailureTest {
  @Override
  GridTestCluster startCluster() {
    return GridTestCluster.startOverTcp(3);
  }
}

package io.tributary.jms;

import static io.tributary.jms.AutoCommitChoice.Recipient.LISTENER;
import static io.tributary.jms.AutoCommitChoice.Recipient.RECEIVE_CALLER;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

class AutoCommitChoiceTest {

    private static final long COMMIT_NANOS = TimeUnit.MICROSECONDS.toNanos(150);
    private static final boolean BUFFERED = true;

    private final AutoCommitChoice choice = new AutoCommitChoice();
    private long now = TimeUnit.SECONDS.toNanos(1);

    @Test
    void nothingBufferedIsAlwaysPipelined() {
        choice.receiveCalled(now);
        assertFalse(choice.commitAtOnce(false, RECEIVE_CALLER));
        assertFalse(choice.commitAtOnce(false, LISTENER));
    }

    @Test
    void theFirstCommitWithTheNextRecordBufferedIsMadeAtOnce() {
        choice.receiveCalled(now);
        assertTrue(choice.commitAtOnce(BUFFERED, RECEIVE_CALLER));
    }

    @Test
    void aReceiveLoopWithNoWorkKeepsCommittingAtOnce() {
        for (int message = 0; message < 5; message++) {
            choice.receiveCalled(now);
            assertTrue(choice.commitAtOnce(BUFFERED, RECEIVE_CALLER), "message " + message);
            commitAtOnceTo(RECEIVE_CALLER);
            now += TimeUnit.MICROSECONDS.toNanos(5); // the caller's work: much less than a commit
        }
    }

    @Test
    void aCallerThatWorksLongerThanACommitGetsPipelinedCommitsUntilItWorksLess() {
        choice.receiveCalled(now);
        commitAtOnceTo(RECEIVE_CALLER);
        now += 4 * COMMIT_NANOS;

        choice.receiveCalled(now);
        assertFalse(choice.commitAtOnce(BUFFERED, RECEIVE_CALLER), "work that hides a pipelined commit");
        choice.handedOver(now, RECEIVE_CALLER);
        now += 2 * COMMIT_NANOS;

        choice.receiveCalled(now);
        assertFalse(choice.commitAtOnce(BUFFERED, RECEIVE_CALLER), "still longer than a commit");
        choice.handedOver(now, RECEIVE_CALLER);
        now += COMMIT_NANOS / 10;

        choice.receiveCalled(now);
        assertTrue(choice.commitAtOnce(BUFFERED, RECEIVE_CALLER), "shorter than a commit again");
    }

    @Test
    void aListenerCommitsAtOnceHoweverLongItWorked() {
        commitAtOnceTo(LISTENER);
        now += 100 * COMMIT_NANOS;
        assertTrue(choice.commitAtOnce(BUFFERED, LISTENER));
    }

    @Test
    void onlyTheTimeAfterAHandOverToTheReceiveCallerIsTheCallersWork() {
        choice.receiveCalled(now);
        commitAtOnceTo(LISTENER);
        now += 100 * COMMIT_NANOS; // a listener's delivery, then a long pause before receive is called
        choice.receiveCalled(now);
        assertTrue(choice.commitAtOnce(BUFFERED, RECEIVE_CALLER));
    }

    private void commitAtOnceTo(AutoCommitChoice.Recipient recipient) {
        choice.committedAtOnce(now, now + COMMIT_NANOS, recipient);
        now += COMMIT_NANOS;
    }
}

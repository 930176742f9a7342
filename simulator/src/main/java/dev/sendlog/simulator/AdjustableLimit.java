package dev.sendlog.simulator;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/** A counting limit like a semaphore whose size can change while permits are held. */
final class AdjustableLimit {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition released = lock.newCondition();
    private int limit;
    private int held;

    AdjustableLimit(int limit) {
        this.limit = limit;
    }

    void acquire() throws InterruptedException {
        lock.lockInterruptibly();
        try {
            while (held >= limit) {
                released.await();
            }
            held++;
        } finally {
            lock.unlock();
        }
    }

    void release() {
        lock.lock();
        try {
            held--;
            released.signal();
        } finally {
            lock.unlock();
        }
    }

    void setLimit(int newLimit) {
        lock.lock();
        try {
            limit = newLimit;
            released.signalAll();
        } finally {
            lock.unlock();
        }
    }
}

package io.tributary.broker.cluster;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;

/**
 * Starts the Curator caches with which a store follows its znodes (SCRAM credentials, client quotas, ACLs, group
 * configurations) and waits until each has loaded what is there, so that the broker serves no request before it
 * knows them. Stateless; called once per store, on the thread that starts the cluster layer.
 */
final class ZkCacheLoading {

    private ZkCacheLoading() {
    }

    /**
     * Has {@code changed} called for every znode created or changed and {@code deleted} for every one deleted, starts
     * the caches, and returns once every cache has loaded.
     *
     * @param what names what is loaded in the error, such as "the ACLs"
     * @throws ClusterException if they were not loaded within {@code timeoutMs}
     */
    static void startAndAwait(List<CuratorCache> caches, Consumer<ChildData> changed, Consumer<ChildData> deleted,
                              long timeoutMs, String what) {
        CountDownLatch loaded = new CountDownLatch(caches.size());
        for (CuratorCache cache : caches) {
            cache.listenable().addListener(CuratorCacheListener.builder()
                    .forCreatesAndChanges((before, after) -> changed.accept(after))
                    .forDeletes(deleted)
                    .forInitialized(loaded::countDown)
                    .build());
            cache.start();
        }
        try {
            if (!loaded.await(timeoutMs, TimeUnit.MILLISECONDS)) {
                throw new ClusterException(what + " were not loaded from ZooKeeper within " + timeoutMs + " ms");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ClusterException.wrap("loading " + what, e);
        }
    }
}

package io.tributary.broker.cluster;

import java.util.ArrayList;
import java.util.List;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * The epoch of the active controller and the zkVersion of {@code /controller_epoch} it wrote when it won the
 * election. Every write of the controller is one ZooKeeper transaction that starts by checking that version, so a
 * controller that lost office (a newer one incremented the epoch) cannot overwrite anything, however late its write
 * arrives; the epoch also goes into every partition state it writes.
 *
 * @param epoch     the controller epoch, the content of {@code /controller_epoch}
 * @param zkVersion the znode version of {@code /controller_epoch} after this controller's increment
 */
record ControllerFence(int epoch, int zkVersion) {

    /** How a fenced transaction ended. */
    enum Outcome {
        /** Every operation was applied. */
        COMMITTED,
        /** Some other precondition failed (a version moved, a node appeared or vanished): re-read and decide again. */
        CONFLICT,
        /** A newer controller was elected; nothing was applied and this controller must stop. */
        FENCED
    }

    /**
     * Runs {@code ops} atomically behind the epoch check.
     *
     * @throws ClusterException for failures other than a failed precondition (connection lost beyond the retries)
     */
    Outcome commit(CuratorFramework zk, List<CuratorOp> ops) {
        List<CuratorOp> fenced = new ArrayList<>(ops.size() + 1);
        try {
            fenced.add(zk.transactionOp().check().withVersion(zkVersion).forPath(ZkPaths.CONTROLLER_EPOCH));
            fenced.addAll(ops);
            zk.transaction().forOperations(fenced);
            return Outcome.COMMITTED;
        } catch (KeeperException.BadVersionException | KeeperException.NodeExistsException
                 | KeeperException.NoNodeException | KeeperException.NotEmptyException e) {
            return stillInOffice(zk) ? Outcome.CONFLICT : Outcome.FENCED;
        } catch (Exception e) {
            throw ClusterException.wrap("transaction of the controller of epoch " + epoch, e);
        }
    }

    private boolean stillInOffice(CuratorFramework zk) {
        try {
            Stat stat = zk.checkExists().forPath(ZkPaths.CONTROLLER_EPOCH);
            return stat != null && stat.getVersion() == zkVersion;
        } catch (Exception e) {
            throw ClusterException.wrap("reading " + ZkPaths.CONTROLLER_EPOCH, e);
        }
    }
}

package io.tributary.broker.cluster;

/**
 * A range of producer ids claimed by one broker, the content of {@code /latest_producer_id_block}:
 * {@code {"version":1,"broker":N,"block_start":"0","block_end":"999"}}.
 *
 * @param firstId the first id of the block
 * @param lastId  the last id of the block, inclusive
 */
record ProducerIdBlock(int brokerId, long firstId, long lastId) {

    ProducerIdBlock {
        if (firstId < 0 || lastId < firstId) {
            throw new IllegalArgumentException("bad producer id block [" + firstId + ", " + lastId + "]");
        }
    }
}

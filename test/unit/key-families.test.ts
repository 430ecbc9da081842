import { describe, expect, it } from 'vitest';
import { globMatch } from '../../lib/local/iam/policy';
import * as K from '../../shared/store/keys';

/** One pk of every builder in shared/store/keys.ts, with sample arguments. */
const PKS: Array<[string, string]> = [
  ['userPk', K.userPk('u1')],
  ['deviceTokenPk', K.deviceTokenPk('ab')],
  ['pairingPk', K.pairingPk('p1')],
  ['pairCodePk', K.pairCodePk('cd')],
  ['apiKeyPk', K.apiKeyPk('ef')],
  ['ratePk', K.ratePk('1.2.3.4')],
  ['marketMetaKey', K.marketMetaKey('m').pk],
  ['historyMarkKey', K.historyMarkKey('m').pk],
  ['rowsPk', K.rowsPk('m')],
  ['candlePk', K.candlePk('m', 'h1', 5)],
  ['volumePk', K.volumePk('m', 5)],
  ['historyPk', K.historyPk('m')],
  ['mergePk', K.mergePk('m')],
  ['scanLogPk', K.scanLogPk('m')],
  ['bookLogPk', K.bookLogPk('m')],
  ['mergeFailureKey', K.mergeFailureKey('m', 'u').pk],
  ['viewAnswerPk', K.viewAnswerPk('h')],
  ['spilledAnswerKey', K.spilledAnswerKey('answers/v1/x').pk],
  ['daySoFarPk', K.daySoFarPk('m', 7)],
  ['marketRetentionKey', K.marketRetentionKey('m').pk],
  ['uploadLimitKey', K.uploadLimitKey('s', 'm').pk],
  ['uploadClaimKey', K.uploadClaimKey('m', 1).pk],
  ['uploadRetryKey', K.uploadRetryKey('r').pk],
  ['quarantinePk', K.quarantinePk('m')],
  ['ITEMS_PK', K.ITEMS_PK],
  ['catalogueEntryKey', K.catalogueEntryKey(12345).pk],
  ['catalogueShardPk', K.catalogueShardPk(3)],
  ['catalogueReportKey', K.catalogueReportKey(12345, 'h').pk],
  ['catalogueAccountKey', K.catalogueAccountKey('0123abcd').pk],
  ['CATALOGUE_META_KEY', K.CATALOGUE_META_KEY.pk],
  ['filesStateKey', K.filesStateKey('m').pk],
  ['capPk', K.capPk('m')],
  ['liveHubsPk', K.liveHubsPk('m')],
  ['liveConnPk', K.liveConnPk('m', 1)],
  ['connPointerKey', K.connPointerKey('c').pk],
  ['alertsPk', K.alertsPk('m')],
  ['alertFiredPk', K.alertFiredPk('m')],
  ['pushEndpointPk', K.pushEndpointPk('e')],
];

/** Unit (issue 23 point 5): the key families the table grants are built from cover every pk, each by one pattern. */
describe('partition key families', () => {
  it("puts every builder's pk in exactly one family, whose LeadingKeys pattern matches it and no other family's does", () => {
    const families = Object.keys(K.PK_FAMILIES) as K.PkFamily[];
    for (const [builder, pk] of PKS) {
      const family = K.familyOf(pk);
      expect(family, builder).toBeDefined();
      const matching = families.filter((f) => globMatch(K.leadingKeyPattern(f), pk));
      expect(matching, `${builder}: ${pk}`).toEqual([family]);
    }
    // Every family is used by some builder: none is granted for nothing.
    expect(new Set(PKS.map(([, pk]) => K.familyOf(pk))).size).toBe(families.length);
  });
});

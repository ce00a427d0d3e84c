// SPDX-License-Identifier: MIT
// solc capture project (issue 46): a ballot with undeclared names and type errors.
pragma solidity ^0.8.0;

contract Ballot {
    uint256[] public votes;

    function vote(uint256 choice) external {
        votes[choise] += 1;
    }

    function winner() external view returns (uint8) {
        return votes.length;
    }

    function reset() external {
        delete tally;
    }
}

// SPDX-License-Identifier: MIT
// solc capture project (issue 46): a vault with type errors solc finds.
pragma solidity ^0.8.0;

contract Vault {
    mapping(address => uint256) public balances;
    bool public open;
    uint8 public fee;

    function deposit() external payable {
        open = 1;
        balances[msg.sender] += msg.value;
    }

    function setFee(uint256 f) external {
        fee = f;
    }

    function owner() external pure returns (address) {
        return 0x1234;
    }

    function withdraw(uint256 amount) external {
        balances[msg.sender] -= amount;
        payable(msg.sender).transfer(amount);
    }

    function label() external pure returns (string memory) {
        return 7;
    }
}
